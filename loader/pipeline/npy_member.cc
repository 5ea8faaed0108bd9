#include "loader/pipeline/npy_member.h"

#include <charconv>
#include <cstddef>
#include <optional>
#include <string_view>

namespace feedrate {
namespace {

constexpr std::string_view kNpy = "a NumPy .npy array";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The text after `key` and its colon in the header's dict literal, or nullopt.
std::optional<std::string_view> after_key(std::string_view header, std::string_view key) {
  for (const char quote : {'\'', '"'}) {
    const std::string quoted = std::string(1, quote) + std::string(key) + quote;
    std::size_t at = header.find(quoted);
    if (at == std::string_view::npos) continue;
    at += quoted.size();
    while (at < header.size() && is_space(header[at])) ++at;
    if (at >= header.size() || header[at] != ':') continue;
    ++at;
    while (at < header.size() && is_space(header[at])) ++at;
    return header.substr(at);
  }
  return std::nullopt;
}

// A quoted string at the start of `text`, or nullopt.
std::optional<std::string_view> quoted(std::string_view text) {
  if (text.empty() || (text[0] != '\'' && text[0] != '"')) return std::nullopt;
  const std::size_t end = text.find(text[0], 1);
  if (end == std::string_view::npos) return std::nullopt;
  return text.substr(1, end - 1);
}

// A type string that holds Python objects: "O", "|O", "<O8", ...
bool is_object(std::string_view type) {
  if (!type.empty() && (type[0] == '|' || type[0] == '<' || type[0] == '>' || type[0] == '=')) {
    type.remove_prefix(1);
  }
  return !type.empty() && type[0] == 'O';
}

// The bytes an element of a simple type string takes ("<f4": 4, "<U3": 12), or 0 when unknown.
std::size_t item_bytes(std::string_view type) {
  if (!type.empty() && (type[0] == '|' || type[0] == '<' || type[0] == '>' || type[0] == '=')) {
    type.remove_prefix(1);
  }
  if (type.empty()) return 0;
  const char kind = type[0];
  if (kind == '?') return type.size() == 1 ? 1 : 0;
  std::size_t count = 0;
  const char* digits = type.data() + 1;
  const char* end = type.data() + type.size();
  if (const std::size_t unit = type.find('['); unit != std::string_view::npos) {
    end = type.data() + unit;  // datetime units: "<M8[ns]"
  }
  const auto [stop, error] = std::from_chars(digits, end, count);
  if (error != std::errc() || stop != end) return 0;
  switch (kind) {
    case 'b':
    case 'i':
    case 'u':
    case 'f':
    case 'c':
    case 'S':
    case 'a':
    case 'V':
    case 'M':
    case 'm':
      return count;
    case 'U':
      return 4 * count;
    default:
      return 0;
  }
}

// The element count the shape tuple at the start of `text` asks for; nullopt when it is not a
// tuple of integers or the count overflows.
std::optional<std::uint64_t> elements(std::string_view text) {
  if (text.empty() || text[0] != '(') return std::nullopt;
  const std::size_t close = text.find(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view inside = text.substr(1, close - 1);
  std::uint64_t count = 1;
  while (!inside.empty()) {
    while (!inside.empty() && (is_space(inside.front()) || inside.front() == ',')) {
      inside.remove_prefix(1);
    }
    if (inside.empty()) break;
    std::uint64_t extent = 0;
    const auto [stop, error] =
        std::from_chars(inside.data(), inside.data() + inside.size(), extent);
    if (error != std::errc()) return std::nullopt;
    inside.remove_prefix(static_cast<std::size_t>(stop - inside.data()));
    if (!inside.empty() && !is_space(inside.front()) && inside.front() != ',') return std::nullopt;
    if (extent != 0 && count > UINT64_MAX / extent) return std::nullopt;
    count *= extent;
  }
  return count;
}

}  // namespace

std::string npy_problem(std::span<const std::uint8_t> bytes) {
  static constexpr std::string_view kMagic = "\x93NUMPY";
  if (bytes.size() < 10 ||
      std::string_view(reinterpret_cast<const char*>(bytes.data()), kMagic.size()) != kMagic) {
    return "not a NumPy .npy array (no \\x93NUMPY magic)";
  }
  const std::uint8_t major = bytes[6];
  std::size_t length = 0, at = 0;
  if (major == 1) {
    length = bytes[8] | (std::size_t{bytes[9]} << 8), at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return std::string(kNpy) + " cut short in its header";
    length = bytes[8] | (std::size_t{bytes[9]} << 8) | (std::size_t{bytes[10]} << 16) |
             (std::size_t{bytes[11]} << 24);
    at = 12;
  } else {
    return std::string(kNpy) + " of unknown format version " + std::to_string(major);
  }
  if (at + length > bytes.size()) return std::string(kNpy) + " cut short in its header";
  std::string_view header(reinterpret_cast<const char*>(bytes.data()) + at, length);
  while (!header.empty() && is_space(header.back())) header.remove_suffix(1);
  if (header.empty() || header.front() != '{' || header.back() != '}') {
    return std::string(kNpy) + " whose header is not a dict";
  }
  const std::optional<std::string_view> descr = after_key(header, "descr");
  const std::optional<std::string_view> shape = after_key(header, "shape");
  if (!descr || !shape || !after_key(header, "fortran_order")) {
    return std::string(kNpy) + " whose header lacks 'descr', 'fortran_order' or 'shape'";
  }
  const std::optional<std::uint64_t> count = elements(*shape);
  if (!count) return std::string(kNpy) + " whose shape is not a tuple of sizes";
  if (const std::optional<std::string_view> type = quoted(*descr)) {
    if (is_object(*type)) {
      return std::string(kNpy) + " of Python objects (reading it needs pickle)";
    }
    const std::size_t item = item_bytes(*type);
    const std::uint64_t data = bytes.size() - at - length;
    if (item != 0 && (*count > UINT64_MAX / item || *count * item > data)) {
      return std::string(kNpy) + " cut short: its header asks for " +
             (*count > UINT64_MAX / item ? std::string("more than 2^64")
                                         : std::to_string(*count * item)) +
             " bytes of data, it holds " + std::to_string(data);
    }
    return {};
  }
  // A structured dtype: a list of (name, type[, shape]) fields.
  const std::size_t list_end = descr->find(']');
  for (std::string_view rest = descr->substr(0, list_end); !rest.empty();) {
    const std::size_t open = rest.find_first_of("'\"");
    if (open == std::string_view::npos) break;
    const std::optional<std::string_view> token = quoted(rest.substr(open));
    if (!token) break;
    if (is_object(*token) && token->size() <= 3) {
      return std::string(kNpy) + " of Python objects (reading it needs pickle)";
    }
    rest.remove_prefix(open + token->size() + 2);
  }
  return {};
}

}  // namespace feedrate
