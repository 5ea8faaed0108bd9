// The tokenizer and number formatting shared by the text forms of the transforms
// (decode/transform_text.h, decode/detection_text.h):
//
//   spec  := step ("," step)*
//   step  := name ["(" arg ("," arg)* ")"]
//   arg   := [key "="] value         value: a number, a word, or a/b (a range), a/b/c (RGB)
//
// A Step hands out its arguments by position or keyword, each once, so that finish() can report
// one left over. Errors are thrown as ParseError and caught by the parsers, which prefix the
// text. Thread-safety: plain values.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feedrate/decode_spec.h"

namespace feedrate::decode::text {

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string_view trim(std::string_view s);

// Splits at commas outside parentheses.
std::vector<std::string_view> split_top(std::string_view text);

// One step: its name, positional arguments and keyword arguments, consumed as they are read
// so that a leftover argument is reported.
class Step {
 public:
  explicit Step(std::string_view text);

  const std::string& name() const { return name_; }

  // The argument at `position` or named `key`, if given.
  std::optional<std::string> take(std::size_t position, const std::string& key);

  double number(std::size_t position, const std::string& key, double fallback);
  int integer(std::size_t position, const std::string& key, int fallback);
  // "a/b/...", any count of numbers.
  std::vector<double> numbers(std::size_t position, const std::string& key,
                              std::vector<double> fallback);
  // "lo/hi"; a single number x gives single(x).
  template <typename Single>
  std::array<double, 2> range(std::size_t position, const std::string& key,
                              std::array<double, 2> fallback, Single single) {
    const auto text = take(position, key);
    if (!text) return fallback;
    const std::vector<double> values = list(key, *text);
    if (values.size() == 1) return single(values[0]);
    if (values.size() != 2) throw ParseError(name_ + ": " + key + " takes low/high");
    return {values[0], values[1]};
  }
  std::array<double, 2> range(std::size_t position, const std::string& key,
                              std::array<double, 2> fallback);
  // "a/b/c", or one value for all three channels.
  std::array<double, 3> triple(std::size_t position, const std::string& key,
                               std::array<float, 3> fallback);
  // interp=bilinear|bicubic (bilinear when absent).
  Interpolation interpolation();

  // Every argument was used.
  void finish() const;

 private:
  double parse_number(const std::string& key, std::string_view text) const;
  std::vector<double> list(const std::string& key, std::string_view text) const;

  std::string name_;
  std::vector<std::string> positional_;
  std::map<std::string, std::string> keyword_;
};

// normalize(mean=a/b/c, std=a/b/c): ImageNet's where not given.
Normalization read_normalization(Step& step);
// Its canonical text, "normalize(mean=...,std=...)".
std::string normalization_text(const Normalization& normalization);

// The parsers' frame: `parse` fills a fresh Spec from `text` (non-empty) and returns
// validate()'s message; a ParseError it throws is caught. Returns an empty string (the spec
// then moved into `out`) or "'TEXT': problem", `out` left as it was.
template <typename Spec, typename Parse>
std::string parse_spec(std::string_view text, Spec& out, Parse parse) {
  Spec parsed;
  std::string problem;
  try {
    if (trim(text).empty()) throw ParseError("empty");
    problem = parse(parsed);
  } catch (const ParseError& e) {
    problem = e.what();
  }
  if (!problem.empty()) {
    std::string message = "'";
    message.append(text).append("': ").append(problem);
    return message;
  }
  out = std::move(parsed);
  return {};
}

// The shortest text that reads back as `value`.
std::string num(double value);
std::string num(float value);
std::string num(int value);
// "lo/hi" and "a/b/c".
std::string pair(const std::array<double, 2>& v);
std::string rgb(const std::array<double, 3>& v);
std::string rgb(const std::array<float, 3>& v);
const char* interp_name(Interpolation interpolation);

}  // namespace feedrate::decode::text
