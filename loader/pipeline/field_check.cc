#include "loader/pipeline/field_check.h"

#include <charconv>
#include <string_view>

#include "loader/pipeline/json_text.h"
#include "loader/pipeline/npy_member.h"

namespace feedrate {
namespace {

// The offset of the first byte that breaks UTF-8, or bytes.size() when there is none.
std::size_t first_bad_utf8(std::span<const std::uint8_t> bytes) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    const std::uint8_t lead = bytes[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t lowest = 0;
    std::uint32_t code = 0;
    if ((lead & 0xe0) == 0xc0) {
      length = 2, lowest = 0x80, code = lead & 0x1f;
    } else if ((lead & 0xf0) == 0xe0) {
      length = 3, lowest = 0x800, code = lead & 0x0f;
    } else if ((lead & 0xf8) == 0xf0) {
      length = 4, lowest = 0x10000, code = lead & 0x07;
    } else {
      return i;
    }
    if (i + length > bytes.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      if ((bytes[i + k] & 0xc0) != 0x80) return i;
      code = (code << 6) | (bytes[i + k] & 0x3f);
    }
    if (code < lowest || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += length;
  }
  return bytes.size();
}

bool is_space(std::uint8_t c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::string_view trimmed(std::span<const std::uint8_t> bytes) {
  std::size_t begin = 0, end = bytes.size();
  while (begin < end && is_space(bytes[begin])) ++begin;
  while (end > begin && is_space(bytes[end - 1])) --end;
  return {reinterpret_cast<const char*>(bytes.data()) + begin, end - begin};
}

}  // namespace

std::string field_problem(FieldKind kind, std::span<const std::uint8_t> bytes) {
  switch (kind) {
    case FieldKind::kText:
      if (const std::size_t bad = first_bad_utf8(bytes); bad < bytes.size()) {
        return "not UTF-8 text (byte " + std::to_string(bad) + " of " +
               std::to_string(bytes.size()) + ")";
      }
      return {};
    case FieldKind::kJson:
      return json_problem(bytes);
    case FieldKind::kInteger: {
      const std::string_view text = trimmed(bytes);
      std::int64_t value = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
        return "not a decimal integer";
      }
      return {};
    }
    case FieldKind::kNpy:
      return npy_problem(bytes);
    case FieldKind::kBytes:
    case FieldKind::kClass:
    case FieldKind::kKey:
      return {};
  }
  return {};
}

std::int64_t integer_value(std::span<const std::uint8_t> bytes) {
  const std::string_view text = trimmed(bytes);
  std::int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

}  // namespace feedrate
