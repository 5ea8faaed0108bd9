// Writer for POSIX ustar archives, as used by WebDataset-style shards: the one tar writer of the
// tree, used by `feedrate pack`, the dataset generator and the tests (which build valid and
// deliberately malformed archives with it). io/tar_index.h reads what it writes.
// Not thread-safe: one TarWriter must be used by one thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace feedrate::io {

inline constexpr std::size_t kTarBlockSize = 512;

// The 512-byte ustar header of a member: mode 0644, uid/gid 0, mtime 0, checksum filled in.
// `typeflag` is '0' for a regular file. Throws std::invalid_argument when `name` is empty or
// longer than 100 bytes (the prefix field is not used) or `size` does not fit the 11 octal digits.
std::array<unsigned char, kTarBlockSize> ustar_header(const std::string& name, std::uint64_t size,
                                                      char typeflag = '0');

class TarWriter {
 public:
  // Creates (truncates) `file`. Throws std::runtime_error naming the file and the OS error.
  explicit TarWriter(const std::filesystem::path& file);
  TarWriter(const TarWriter&) = delete;
  TarWriter& operator=(const TarWriter&) = delete;
  // Finishes the archive if finish() was not called; errors are swallowed here, so callers that
  // care about them must call finish() themselves.
  ~TarWriter();

  // Appends a regular file member: header, data, zero padding up to the next 512-byte boundary.
  // Throws std::invalid_argument for a bad name (see ustar_header), std::logic_error after
  // finish(), std::runtime_error on a write error.
  void add(const std::string& name, std::span<const unsigned char> data);

  // Appends bytes exactly as given, without header or padding: lets tests produce truncated
  // members, corrupt headers or missing end-of-archive blocks.
  void write_raw(std::span<const unsigned char> bytes);

  // Writes the end-of-archive marker (two zero blocks) and closes the file. Throws
  // std::runtime_error on a write or close error. A second call does nothing.
  void finish();

  // Bytes written so far, headers and padding included.
  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };

  void write(const void* data, std::size_t size);

  std::filesystem::path path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::uint64_t bytes_written_ = 0;
};

}  // namespace feedrate::io
