#include "io/remote/brace_pattern.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <stdexcept>

namespace feedrate::io {
namespace {

[[noreturn]] void fail(std::string_view pattern, std::size_t position, const std::string& why) {
  throw std::invalid_argument("brace pattern '" + std::string(pattern) + "', at character " +
                              std::to_string(position + 1) + ": " + why);
}

bool is_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::uint64_t to_number(std::string_view pattern, std::size_t position, std::string_view text) {
  std::uint64_t value = 0;
  const auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || ptr != text.data() + text.size()) {
    fail(pattern, position, "bound '" + std::string(text) + "' is too large");
  }
  return value;
}

// The alternatives of the group whose text (between the braces) is `body`.
std::vector<std::string> expand_group(std::string_view pattern, std::size_t position,
                                      std::string_view body, std::size_t max_names) {
  std::vector<std::string> items;
  const auto dots = body.find("..");
  if (dots != std::string_view::npos && body.find(',') == std::string_view::npos) {
    const auto first = body.substr(0, dots);
    const auto last = body.substr(dots + 2);
    if (!is_digits(first) || !is_digits(last)) {
      fail(pattern, position,
           "a range {A..B} needs two non-negative integers, got {" + std::string(body) + "}");
    }
    const bool padded =
        (first.size() > 1 && first.front() == '0') || (last.size() > 1 && last.front() == '0');
    const std::size_t width = padded ? std::max(first.size(), last.size()) : 0;
    const auto from = to_number(pattern, position, first);
    const auto to = to_number(pattern, position, last);
    const auto span = from <= to ? to - from : from - to;
    if (span >= max_names) {
      fail(pattern, position, "the range names more than " + std::to_string(max_names) + " names");
    }
    const auto count = span + 1;
    items.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      std::string number = std::to_string(from <= to ? from + i : from - i);
      if (number.size() < width) number.insert(0, width - number.size(), '0');
      items.push_back(std::move(number));
    }
    return items;
  }
  if (body.find(',') == std::string_view::npos) {
    fail(pattern, position,
         "a group is a range {A..B} or a list {a,b}, got {" + std::string(body) + "}");
  }
  std::size_t start = 0;
  while (true) {
    const auto comma = body.find(',', start);
    items.emplace_back(body.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

}  // namespace

bool has_brace_pattern(std::string_view text) {
  return text.find_first_of("{}") != std::string_view::npos;
}

std::vector<std::string> expand_braces(std::string_view pattern, std::size_t max_names) {
  std::vector<std::string> names{""};
  std::size_t i = 0;
  while (i < pattern.size()) {
    const auto open = pattern.find_first_of("{}", i);
    const auto literal = pattern.substr(i, open - i);
    for (auto& name : names) name += literal;
    if (open == std::string_view::npos) break;
    if (pattern[open] == '}') fail(pattern, open, "'}' without a matching '{'");
    const auto close = pattern.find_first_of("{}", open + 1);
    if (close == std::string_view::npos) fail(pattern, open, "'{' without a matching '}'");
    if (pattern[close] == '{') fail(pattern, close, "nested braces are not supported");
    const auto items =
        expand_group(pattern, open, pattern.substr(open + 1, close - open - 1), max_names);
    if (names.size() > max_names / items.size()) {
      fail(pattern, open, "the pattern names more than " + std::to_string(max_names) + " names");
    }
    std::vector<std::string> product;
    product.reserve(names.size() * items.size());
    for (const auto& name : names) {
      for (const auto& item : items) product.push_back(name + item);
    }
    names = std::move(product);
    i = close + 1;
  }
  return names;
}

}  // namespace feedrate::io
