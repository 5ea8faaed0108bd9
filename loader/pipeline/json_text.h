// Whether a member's bytes are a JSON text as Python's json.loads(bytes) reads it (internal to
// loader/), so that the decode stage refuses exactly what the consumer could not turn into a
// dict: RFC 8259 plus Python's NaN, Infinity and -Infinity; numbers of any size (1e999 is
// inf); UTF-8 with or without a byte order mark; strings without raw control characters
// (json.loads is strict); nothing after the value but white space; and, since Python's decoder
// recurses, nesting no deeper than kMaxJsonDepth. JSON in UTF-16 or UTF-32, which Python
// detects, is refused with its own reason.
//
// Thread-safety: a pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace feedrate {

inline constexpr std::size_t kMaxJsonDepth = 500;

// What is wrong with `bytes` as JSON ("not JSON: ... at byte N"), or an empty string.
std::string json_problem(std::span<const std::uint8_t> bytes);

}  // namespace feedrate
