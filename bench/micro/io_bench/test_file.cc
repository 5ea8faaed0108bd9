#include "bench/micro/io_bench/test_file.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <vector>

#include "io/file.h"
#include "io/page_cache.h"

namespace feedrate::io_bench {
namespace {

// Writes a file of `bytes` pseudo-random bytes (no zero pages or repeats that a compressing or
// deduplicating layer could shortcut) in 8 MiB writes, fsyncs it, and renames it into place so
// that an interrupted run never leaves a file of the right size behind.
void create_file(const fs::path& path, std::uint64_t bytes) {
  const fs::path partial = path.string() + ".partial";
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "create " + partial.string());
  const auto fail = [&](const char* what) {
    const int saved = errno;
    ::close(fd);
    throw std::system_error(saved, std::generic_category(), what + (" " + partial.string()));
  };
  std::vector<std::uint64_t> chunk(8 * kMiB / sizeof(std::uint64_t));
  std::uint64_t state = kSeed;
  for (std::uint64_t written = 0; written < bytes;) {
    for (std::uint64_t& word : chunk) {  // splitmix64
      std::uint64_t z = (state += 0x9e3779b97f4a7c15);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
      z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
      word = z ^ (z >> 31);
    }
    const auto* data = reinterpret_cast<const char*>(chunk.data());
    const std::size_t length = static_cast<std::size_t>(
        std::min<std::uint64_t>(chunk.size() * sizeof(std::uint64_t), bytes - written));
    for (std::size_t put = 0; put < length;) {
      const ssize_t n = ::write(fd, data + put, length - put);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("write");
      put += static_cast<std::size_t>(n);
    }
    written += length;
  }
  if (::fsync(fd) != 0) fail("fsync");
  ::close(fd);
  fs::rename(partial, path);
}

}  // namespace

fs::path prepare_file(const std::string& file, const fs::path& dir, std::uint64_t size_mb,
                      std::string* origin) {
  if (!file.empty()) {
    *origin = "given";
    return file;
  }
  const std::uint64_t bytes = size_mb * kMiB;
  const fs::path path = fs::path(dir) / fmt::format("test-{}MiB.bin", size_mb);
  std::error_code error;
  if (fs::is_regular_file(path, error) && fs::file_size(path, error) == bytes && !error) {
    *origin = "reused";
    return path;
  }
  fs::create_directories(dir);
  fmt::print(stderr, "feedrate-io-bench: writing {} ({} MiB)...\n", path.string(), size_mb);
  create_file(path, bytes);
  *origin = "created";
  return path;
}

double warm_page_cache(const Setup& setup) {
  std::error_code error;
  const io::File file = io::File::open(setup.path, error);
  if (error) throw std::system_error(error, "open " + setup.path.string());
  std::vector<char> chunk(8 * kMiB);
  for (off_t offset = 0;;) {
    const ssize_t n = ::pread(file.fd(), chunk.data(), chunk.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::system_error(errno, std::generic_category(), "read " + setup.path.string());
    if (n == 0) break;
    offset += n;
  }
  return static_cast<double>(io::resident_bytes(setup.path)) /
         static_cast<double>(setup.file_bytes);
}

}  // namespace feedrate::io_bench
