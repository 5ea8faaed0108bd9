// Test helpers: a temporary folder that removes itself, file writing, and small generated
// datasets in every format the loader reads. Thread-safety: single-threaded test code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/datagen/datagen.h"

namespace feedrate::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

void write_file(const std::filesystem::path& path, const std::vector<unsigned char>& bytes);

// The message of the feedrate::Error that `f` throws, or "no error".
std::string error_of(const std::function<void()>& f);
std::vector<unsigned char> read_file(const std::filesystem::path& path);

// A small JPEG (default 96x72) with photograph-like content, deterministic in seed.
std::vector<unsigned char> small_jpeg(std::uint64_t seed, int width = 96, int height = 72,
                                      datagen::ColorKind color = datagen::ColorKind::kRgb);

// root/class_<c>/img_<i>.jpg with image i in class i % classes; small images so tests run fast.
// Returns the image paths in index order (sorted by class, then name, as ImageFolder orders).
std::vector<std::filesystem::path> make_image_folder(const std::filesystem::path& root, int count,
                                                     int classes, std::uint64_t seed = 1);

// Runs a shell command; returns its exit status (for GNU tar in tests).
int run_command(const std::string& command);

// An independent ustar reader (not io/tar_index.h): checks the magic, checksum and type of every
// header and the end-of-archive marker with gtest expectations, and returns the members (name,
// bytes) in archive order.
std::vector<std::pair<std::string, std::vector<unsigned char>>> read_tar(
    const std::filesystem::path& path);

// `tar -tf`, as an outside check that the archive is readable by standard tools: the member
// names it lists (a failing tar is a test failure).
std::vector<std::string> tar_list(const std::filesystem::path& path);

}  // namespace feedrate::testing
