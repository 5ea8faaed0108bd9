// Number formatting for the sentences the loader writes (verdict, capacities): printf-style
// formatting into a string, and rates with thousands separators ("2,500"), as people read them.
// Internal to loader/. Thread-safety: reentrant.
#pragma once

#include <cmath>
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
  std::string digits = std::to_string(static_cast<long long>(std::llround(value)));
  const int first = digits[0] == '-' ? 1 : 0;
  for (int i = static_cast<int>(digits.size()) - 3; i > first; i -= 3) digits.insert(i, ",");
  return digits;
}

}  // namespace feedrate::text
