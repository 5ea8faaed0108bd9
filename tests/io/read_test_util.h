// Helpers shared by the io/ suites: deterministic file content, read requests, a check that a
// request holds the file's bytes, and a Reader of a chosen backend (skipping where io_uring is
// unavailable). Thread-safety: test code, one thread.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "io/reader.h"

namespace feedrate::io::test_support {

using Bytes = std::vector<unsigned char>;

inline Bytes random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes bytes(size);
  for (auto& byte : bytes) byte = static_cast<unsigned char>(rng());
  return bytes;
}

inline ReadRequest make_request(int fd, std::uint64_t offset, std::span<std::byte> dest) {
  ReadRequest request;
  request.fd = fd;
  request.offset = offset;
  request.dest = dest;
  return request;
}

// Whether `request.dest` starts with exactly `expected[offset, offset + bytes_read)`.
inline ::testing::AssertionResult holds_bytes(const ReadRequest& request, const Bytes& expected) {
  for (std::size_t i = 0; i < request.bytes_read; ++i) {
    const auto want = static_cast<std::byte>(expected[request.offset + i]);
    if (request.dest[i] != want) {
      return ::testing::AssertionFailure()
             << "byte " << i << " of the range at offset " << request.offset << " (size "
             << request.dest.size() << ") is " << static_cast<int>(request.dest[i]) << ", expected "
             << static_cast<int>(want);
    }
  }
  return ::testing::AssertionSuccess();
}

// A reader of `backend` with `options` (force_pread is set from `backend`). Returns nullptr
// and sets `skip` when io_uring is wanted but unavailable here.
inline std::unique_ptr<Reader> make_reader(Backend backend, ReaderOptions options,
                                           std::string& skip) {
  options.force_pread = backend == Backend::kPread;
  std::string reason;
  auto reader = Reader::create(options, &reason);
  if (backend == Backend::kIoUring && reader->backend() != Backend::kIoUring) {
    skip = "io_uring unavailable: " + reason;
    return nullptr;
  }
  return reader;
}

}  // namespace feedrate::io::test_support
