// The shard the read-ahead's tests read (the planner's alone, the runner's through a scripted
// server): kReadAheadSamples samples (key.jpg, key.cls), so that a .cls member lies between
// every two images, a gap within a grouped GET. Sample i has 3,000 + 97 i bytes, distinct from
// every other sample's.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "io/tar_writer.h"

namespace feedrate::testing {

inline constexpr std::uint32_t kReadAheadSamples = 24;

inline std::vector<unsigned char> read_ahead_sample_bytes(std::size_t i) {
  std::vector<unsigned char> bytes(3'000 + 97 * i);
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    bytes[k] = static_cast<unsigned char>(k * 31 + i * 7 + 1);
  }
  return bytes;
}

// Whether `bytes` are sample `index`'s.
inline ::testing::AssertionResult are_sample_bytes(std::uint32_t index,
                                                   std::span<const std::byte> bytes) {
  const std::vector<unsigned char> want = read_ahead_sample_bytes(index);
  if (bytes.size() == want.size() &&
      std::equal(want.begin(), want.end(), reinterpret_cast<const unsigned char*>(bytes.data()))) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "sample " << index << ": other bytes";
}

// Writes the shard to `path` and returns its bytes.
inline std::string write_read_ahead_shard(const std::filesystem::path& path) {
  {
    io::TarWriter tar(path);
    for (std::size_t i = 0; i < kReadAheadSamples; ++i) {
      const std::string key = std::to_string(100 + i);
      tar.add(key + ".jpg", read_ahead_sample_bytes(i));
      const std::string label = std::to_string(i % 3) + "\n";
      tar.add(key + ".cls", std::vector<unsigned char>(label.begin(), label.end()));
    }
    tar.finish();
  }
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace feedrate::testing
