// Number formatting for the sentences the loader writes (verdict, capacities): printf-style
// formatting into a string, and rates with thousands separators ("2,500"), as people read them.
// Internal to loader/. Thread-safety: reentrant.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>

namespace feedrate::text {

template <typename... Args>
std::string format(const char* pattern, Args... args) {
  char buffer[1024];
  std::snprintf(buffer, sizeof(buffer), pattern, args...);
  return buffer;
}

// "2,500"; "unlimited" for infinity.
inline std::string thousands(double value) {
  if (std::isinf(value)) return "unlimited";
  const std::string digits = std::to_string(std::llround(value));
  const std::size_t first = digits[0] == '-' ? 1 : 0;
  // Built forwards rather than by insert(): GCC 12 sees a false overlap (-Wrestrict) in that.
  std::string grouped = digits.substr(0, first);
  for (std::size_t i = first; i < digits.size(); ++i) {
    if (i > first && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

}  // namespace feedrate::text
