#include "decode/step_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

namespace feedrate::decode::text {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_top(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      parts.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      if (--depth < 0) throw ParseError("unbalanced ')'");
    }
  }
  if (depth != 0) throw ParseError("unbalanced '('");
  return parts;
}

Step::Step(std::string_view text) {
  const std::size_t open = text.find('(');
  name_ = std::string(trim(text.substr(0, open)));
  if (name_.empty()) throw ParseError("an empty step");
  if (open == std::string_view::npos) return;
  if (text.back() != ')') throw ParseError(name_ + ": text after ')'");
  const std::string_view inner = trim(text.substr(open + 1, text.size() - open - 2));
  if (inner.empty()) return;
  for (std::string_view arg : split_top(inner)) {
    const std::size_t eq = arg.find('=');
    if (eq == std::string_view::npos) {
      if (!keyword_.empty()) throw ParseError(name_ + ": a positional argument after a keyword");
      positional_.emplace_back(arg);
    } else {
      keyword_[std::string(trim(arg.substr(0, eq)))] = std::string(trim(arg.substr(eq + 1)));
    }
  }
}

std::optional<std::string> Step::take(std::size_t position, const std::string& key) {
  if (auto it = keyword_.find(key); it != keyword_.end()) {
    std::string value = it->second;
    keyword_.erase(it);
    return value;
  }
  if (position < positional_.size() && !positional_[position].empty()) {
    return std::exchange(positional_[position], std::string());
  }
  return std::nullopt;
}

double Step::number(std::size_t position, const std::string& key, double fallback) {
  const auto text = take(position, key);
  return text ? parse_number(key, *text) : fallback;
}

int Step::integer(std::size_t position, const std::string& key, int fallback) {
  const double value = number(position, key, fallback);
  if (value != std::floor(value) || std::abs(value) > 1e9) {
    throw ParseError(name_ + ": " + key + " must be an integer");
  }
  return static_cast<int>(value);
}

std::vector<double> Step::numbers(std::size_t position, const std::string& key,
                                  std::vector<double> fallback) {
  const auto text = take(position, key);
  return text ? list(key, *text) : fallback;
}

std::array<double, 2> Step::range(std::size_t position, const std::string& key,
                                  std::array<double, 2> fallback) {
  return range(position, key, fallback, [&](double) -> std::array<double, 2> {
    throw ParseError(name_ + ": " + key + " takes low/high");
  });
}

std::array<double, 3> Step::triple(std::size_t position, const std::string& key,
                                   std::array<float, 3> fallback) {
  const auto text = take(position, key);
  if (!text) return {fallback[0], fallback[1], fallback[2]};
  const std::vector<double> values = list(key, *text);
  if (values.size() == 1) return {values[0], values[0], values[0]};
  if (values.size() != 3) throw ParseError(name_ + ": " + key + " takes one value or r/g/b");
  return {values[0], values[1], values[2]};
}

Interpolation Step::interpolation() {
  const auto text = take(99, "interp");
  if (!text || *text == "bilinear") return Interpolation::kBilinear;
  if (*text == "bicubic") return Interpolation::kBicubic;
  throw ParseError(name_ + ": interp='" + *text + "' is not bilinear or bicubic");
}

void Step::finish() const {
  for (const std::string& p : positional_) {
    if (!p.empty()) throw ParseError(name_ + ": unexpected argument '" + p + "'");
  }
  if (!keyword_.empty()) {
    throw ParseError(name_ + ": unknown argument '" + keyword_.begin()->first + "'");
  }
}

double Step::parse_number(const std::string& key, std::string_view text) const {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    throw ParseError(name_ + ": " + key + "='" + std::string(text) + "' is not a number");
  }
  return value;
}

std::vector<double> Step::list(const std::string& key, std::string_view text) const {
  std::vector<double> values;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '/') {
      values.push_back(parse_number(key, trim(text.substr(start, i - start))));
      start = i + 1;
    }
  }
  return values;
}

Normalization read_normalization(Step& step) {
  const auto mean = step.triple(0, "mean", kImageNetMean);
  const auto stdev = step.triple(1, "std", kImageNetStd);
  Normalization n;
  for (int c = 0; c < 3; ++c) {
    n.mean[c] = static_cast<float>(mean[c]);
    n.std[c] = static_cast<float>(stdev[c]);
  }
  return n;
}

std::string normalization_text(const Normalization& normalization) {
  return "normalize(mean=" + rgb(normalization.mean) + ",std=" + rgb(normalization.std) + ")";
}

namespace {

template <typename T>
std::string shortest(T value) {
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

}  // namespace

std::string num(double value) {
  return shortest(value);
}

std::string num(float value) {
  return shortest(value);
}

std::string num(int value) {
  return shortest(value);
}

std::string pair(const std::array<double, 2>& v) {
  return num(v[0]) + "/" + num(v[1]);
}

std::string rgb(const std::array<double, 3>& v) {
  return num(v[0]) + "/" + num(v[1]) + "/" + num(v[2]);
}

std::string rgb(const std::array<float, 3>& v) {
  return num(v[0]) + "/" + num(v[1]) + "/" + num(v[2]);
}

const char* interp_name(Interpolation interpolation) {
  return interpolation == Interpolation::kBilinear ? "bilinear" : "bicubic";
}

}  // namespace feedrate::decode::text
