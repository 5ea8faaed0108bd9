// Errors of feedrate's own that a read can end with, next to the errno values (generic
// category) that the kernel reports. Thread-safety: immutable.
#pragma once

#include <system_error>

namespace feedrate::io {

enum class ReadErrc {
  // The file ended before the requested range did: it is shorter than the index said.
  kUnexpectedEof = 1,
};

const std::error_category& read_category();
std::error_code make_error_code(ReadErrc code);

}  // namespace feedrate::io

template <>
struct std::is_error_code_enum<feedrate::io::ReadErrc> : std::true_type {};
