// The images feedrate-decode-bench measures on: JPEGs of a dataset, each in memory with its
// size and `feedrate pack`'s lossless form.
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace feedrate::decode_bench {

struct Image {
  std::filesystem::path path;
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> packed;  // `feedrate pack`'s lossless form (decode/jpeg_pack.h)
  int width = 0, height = 0;
};

// Evenly spaced JPEGs of the dataset (sorted by path), read into memory.
// Throws std::runtime_error when there is none, or one cannot be decoded or packed.
std::vector<Image> load_images(const std::filesystem::path& dir, int count, int restart_mcus);

}  // namespace feedrate::decode_bench
