#include "loader/pipeline/json_text.h"

#include <algorithm>
#include <string_view>

#include "loader/pipeline/field_check.h"

namespace feedrate {
namespace {

bool is_digit(std::uint8_t c) {
  return c >= '0' && c <= '9';
}

bool is_hex(std::uint8_t c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// A recursive-descent reader of CPython's json grammar (Lib/json/decoder.py, scanner.py).
class JsonReader {
 public:
  explicit JsonReader(std::span<const std::uint8_t> bytes)
      : begin_(bytes.data()), at_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  std::string problem() {
    space();
    if (!value(0)) return error_;
    space();
    if (at_ != end_) return where("extra data");
    return {};
  }

 private:
  std::string where(const char* what) const {
    return std::string("not JSON: ") + what + " at byte " + std::to_string(at_ - begin_);
  }
  bool fail(const char* what) {
    error_ = where(what);
    return false;
  }
  void space() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\t' || *at_ == '\n' || *at_ == '\r')) ++at_;
  }
  bool word(std::string_view text) {
    if (static_cast<std::size_t>(end_ - at_) < text.size() ||
        std::string_view(reinterpret_cast<const char*>(at_), text.size()) != text) {
      return false;
    }
    at_ += text.size();
    return true;
  }

  bool value(std::size_t depth) {
    if (at_ == end_) return fail("expecting a value");
    switch (*at_) {
      case '"':
        return string();
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case 'n':
        if (word("null")) return true;
        break;
      case 't':
        if (word("true")) return true;
        break;
      case 'f':
        if (word("false")) return true;
        break;
      case 'N':
        if (word("NaN")) return true;
        break;
      case 'I':
        if (word("Infinity")) return true;
        break;
      case '-':
        if (word("-Infinity")) return true;
        return number();
      default:
        if (is_digit(*at_)) return number();
    }
    return fail("expecting a value");
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?, as Python's NUMBER_RE: a '.' or 'e' that
  // no digit follows is not part of the number (and is then extra data).
  bool number() {
    if (*at_ == '-') ++at_;
    if (at_ == end_ || !is_digit(*at_)) return fail("expecting a value");
    if (*at_ == '0') {
      ++at_;
    } else {
      while (at_ != end_ && is_digit(*at_)) ++at_;
    }
    if (end_ - at_ >= 2 && at_[0] == '.' && is_digit(at_[1])) {
      ++at_;
      while (at_ != end_ && is_digit(*at_)) ++at_;
    }
    if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
      const std::uint8_t* exponent = at_ + 1;
      if (exponent != end_ && (*exponent == '+' || *exponent == '-')) ++exponent;
      if (exponent != end_ && is_digit(*exponent)) {
        at_ = exponent;
        while (at_ != end_ && is_digit(*at_)) ++at_;
      }
    }
    return true;
  }

  bool string() {
    ++at_;  // the opening quote
    while (at_ != end_) {
      const std::uint8_t c = *at_;
      if (c == '"') {
        ++at_;
        return true;
      }
      if (c < 0x20) return fail("invalid control character in a string");
      if (c != '\\') {
        ++at_;
        continue;
      }
      if (++at_ == end_) break;
      switch (*at_) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
          ++at_;
          break;
        case 'u':
          for (int k = 1; k <= 4; ++k) {
            if (end_ - at_ <= k || !is_hex(at_[k])) return fail("invalid \\uXXXX escape");
          }
          at_ += 5;
          break;
        default:
          return fail("invalid \\escape");
      }
    }
    return fail("unterminated string");
  }

  bool object(std::size_t depth) {
    if (depth > kMaxJsonDepth) return fail("nested deeper than 500 levels");
    ++at_;
    space();
    if (at_ != end_ && *at_ == '}') {
      ++at_;
      return true;
    }
    for (;;) {
      if (at_ == end_ || *at_ != '"') return fail("expecting a property name in double quotes");
      if (!string()) return false;
      space();
      if (at_ == end_ || *at_ != ':') return fail("expecting ':' delimiter");
      ++at_;
      space();
      if (!value(depth)) return false;
      space();
      if (at_ != end_ && *at_ == '}') {
        ++at_;
        return true;
      }
      if (at_ == end_ || *at_ != ',') return fail("expecting ',' delimiter");
      ++at_;
      space();
    }
  }

  bool array(std::size_t depth) {
    if (depth > kMaxJsonDepth) return fail("nested deeper than 500 levels");
    ++at_;
    space();
    if (at_ != end_ && *at_ == ']') {
      ++at_;
      return true;
    }
    for (;;) {
      if (!value(depth)) return false;
      space();
      if (at_ != end_ && *at_ == ']') {
        ++at_;
        return true;
      }
      if (at_ == end_ || *at_ != ',') return fail("expecting ',' delimiter");
      ++at_;
      space();
    }
  }

  const std::uint8_t* begin_;
  const std::uint8_t* at_;
  const std::uint8_t* end_;
  std::string error_;
};

// Python's json.detect_encoding: what the bytes' start says they are.
bool wide_encoding(std::span<const std::uint8_t> b) {
  if (b.size() >= 2 && ((b[0] == 0xfe && b[1] == 0xff) || (b[0] == 0xff && b[1] == 0xfe))) {
    return true;  // a UTF-16 or UTF-32 byte order mark
  }
  if (b.size() >= 4) return b[0] == 0 || b[1] == 0;
  return b.size() == 2 && (b[0] == 0 || b[1] == 0);
}

}  // namespace

std::string json_problem(std::span<const std::uint8_t> bytes) {
  static constexpr std::uint8_t kBom[] = {0xef, 0xbb, 0xbf};
  if (bytes.size() >= 3 && std::equal(bytes.begin(), bytes.begin() + 3, kBom)) {
    bytes = bytes.subspan(3);
  } else if (wide_encoding(bytes)) {
    return "not JSON in UTF-8 (UTF-16 or UTF-32 are not read)";
  }
  if (const std::string problem = field_problem(FieldKind::kText, bytes); !problem.empty()) {
    return "not JSON: " + problem;
  }
  return JsonReader(bytes).problem();
}

}  // namespace feedrate
