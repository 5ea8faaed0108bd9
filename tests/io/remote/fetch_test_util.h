// Helpers of the io/remote suites: draining a fetcher, an object's bytes that differ from their
// neighbours, and comparing fetched bytes with the expected ones. Thread-safety: test code, one
// thread.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "io/remote/range_fetcher.h"

namespace feedrate::io::test_support {

// Polls until every submitted request is back; the results in completion order.
inline std::vector<FetchResult> drain(RangeFetcher& fetcher) {
  std::vector<FetchResult> results;
  while (fetcher.pending() > 0) fetcher.poll(std::chrono::milliseconds(1000), results);
  return results;
}

// `size` bytes, byte i being (i * step + first) mod 256: a byte out of place shows.
inline std::vector<unsigned char> patterned_bytes(std::size_t size, unsigned step, unsigned first) {
  std::vector<unsigned char> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(i * step + first);
  return bytes;
}

// Whether `got` holds exactly expected[offset, offset + got.size()).
inline ::testing::AssertionResult same_bytes(std::span<const std::byte> got,
                                             const std::vector<unsigned char>& expected,
                                             std::uint64_t offset) {
  if (offset + got.size() > expected.size()) {
    return ::testing::AssertionFailure() << "range past the local file's end";
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != static_cast<std::byte>(expected[offset + i])) {
      return ::testing::AssertionFailure() << "byte " << offset + i << " differs";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace feedrate::io::test_support
