// A ranged GET as a RangeFetcher's caller gives it (io/remote/range_fetcher.h says what happens
// to it). Thread-safety: a value.
#pragma once

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

}  // namespace feedrate::io
