// An open, read-only file descriptor (buffered, or O_DIRECT on request) that closes itself.
// Thread-safety: a File may be read from any number of threads (pread / io_uring do not move a
// shared offset); moving or destroying it must not race with those reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <system_error>

namespace feedrate::io {

class File {
 public:
  File() = default;
  // Opens `path` read-only (O_CLOEXEC). On failure the File is closed and `error` set.
  // With `direct`, asks for O_DIRECT (page cache bypassed; reads must be aligned, which
  // Reader does for its requests); where the file system refuses O_DIRECT (EINVAL), the file
  // is opened buffered instead and direct() says so.
  static File open(const std::filesystem::path& path, std::error_code& error, bool direct = false);
  ~File();
  File(File&& other) noexcept : fd_(other.fd_), direct_(other.direct_) { other.fd_ = -1; }
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  int fd() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  // Whether the descriptor was opened with O_DIRECT.
  bool direct() const { return direct_; }
  // Size in bytes from fstat; sets `error` on failure.
  std::uint64_t size(std::error_code& error) const;

 private:
  File(int fd, bool direct) : fd_(fd), direct_(direct) {}
  int fd_ = -1;
  bool direct_ = false;
};

// Reads exactly [offset, offset + size) with pread, for the few small reads done while
// indexing (tar headers, label files). Sets `error` (ReadErrc::kUnexpectedEof on end of file) on failure.
void pread_exact(int fd, std::uint64_t offset, void* dest, std::size_t size,
                 std::error_code& error);

}  // namespace feedrate::io
