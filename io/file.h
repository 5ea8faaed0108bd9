// An open, read-only file descriptor that closes itself. Thread-safety: a File may be read
// from any number of threads (pread / io_uring do not move a shared offset); moving or
// destroying it must not race with those reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <system_error>

namespace feedrate::io {

class File {
 public:
  File() = default;
  // Opens `path` read-only (O_CLOEXEC). On failure the File is closed and `error` set.
  static File open(const std::filesystem::path& path, std::error_code& error);
  ~File();
  File(File&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  int fd() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  // Size in bytes from fstat; sets `error` on failure.
  std::uint64_t size(std::error_code& error) const;

 private:
  explicit File(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Reads exactly [offset, offset + size) with pread, for the few small reads done while
// indexing (tar headers, label files). Sets `error` (io_error on end of file) on failure.
void pread_exact(int fd, std::uint64_t offset, void* dest, std::size_t size,
                 std::error_code& error);

}  // namespace feedrate::io
