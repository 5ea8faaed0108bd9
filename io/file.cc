#include "io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "io/read_error.h"

namespace feedrate::io {

namespace {

int open_retrying(const std::filesystem::path& path, int flags) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), flags);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

}  // namespace

File File::open(const std::filesystem::path& path, std::error_code& error, bool direct) {
  int fd = direct ? open_retrying(path, O_RDONLY | O_CLOEXEC | O_DIRECT) : -1;
  // EINVAL for O_DIRECT means the file system does not do direct I/O (procfs; tmpfs before
  // Linux 6.6): the caller still wants the bytes.
  if (direct && fd < 0 && errno == EINVAL) direct = false;
  if (!direct) fd = open_retrying(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::error_code(errno, std::generic_category());
    return File();
  }
  error.clear();
  return File(fd, direct);
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    direct_ = other.direct_;
    other.fd_ = -1;
  }
  return *this;
}

std::uint64_t File::size(std::error_code& error) const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    error = std::error_code(errno, std::generic_category());
    return 0;
  }
  error.clear();
  return static_cast<std::uint64_t>(st.st_size);
}

void pread_exact(int fd, std::uint64_t offset, void* dest, std::size_t size,
                 std::error_code& error) {
  error.clear();
  auto* out = static_cast<char*>(dest);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      error = std::error_code(errno, std::generic_category());
      return;
    }
    if (got == 0) {
      error = make_error_code(ReadErrc::kUnexpectedEof);
      return;
    }
    done += static_cast<std::size_t>(got);
  }
}

}  // namespace feedrate::io
