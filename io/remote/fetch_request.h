// A ranged GET as a RangeFetcher's caller gives it (io/remote/range_fetcher.h says what happens
// to it), and the clock the fetcher times requests with. Thread-safety: a value.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace feedrate::io {

struct FetchRequest {
  std::string url;  // s3://bucket/key, http://..., https://...
  std::uint64_t offset = 0;
  std::span<std::byte> dest;  // exactly the bytes to fetch; caller-owned
  std::uint64_t tag = 0;      // the caller's, handed back with the result
  std::string if_match;       // an ETag from stat() or list(); empty: any version
};

using FetchClock = std::chrono::steady_clock;

}  // namespace feedrate::io
