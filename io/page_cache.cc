#include "io/page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "io/file.h"

namespace feedrate::io {
namespace {

// Mapped and queried at a time by resident_bytes: 64 MiB of file, 16 Ki page flags.
constexpr std::uint64_t kWindowBytes = std::uint64_t{64} << 20;

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int error) {
  throw std::system_error(error, std::generic_category(), path.string() + ": " + what);
}

}  // namespace

std::error_code evict_from_page_cache(const std::filesystem::path& path) {
  std::error_code error;
  const File file = File::open(path, error);
  if (error) return error;
  ::fdatasync(file.fd());  // best effort: a file system without it has nothing dirty to write
  const int rc = ::posix_fadvise(file.fd(), 0, 0, POSIX_FADV_DONTNEED);
  return rc == 0 ? std::error_code() : std::error_code(rc, std::generic_category());
}

std::uint64_t resident_bytes(const std::filesystem::path& path) {
  std::error_code error;
  const File file = File::open(path, error);
  if (error) fail(path, "cannot open", error.value());
  const std::uint64_t size = file.size(error);
  if (error) fail(path, "cannot stat", error.value());
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> flags(kWindowBytes / page);
  std::uint64_t resident = 0;
  for (std::uint64_t start = 0; start < size; start += kWindowBytes) {
    const auto length = static_cast<std::size_t>(std::min(kWindowBytes, size - start));
    void* map =
        ::mmap(nullptr, length, PROT_READ, MAP_SHARED, file.fd(), static_cast<off_t>(start));
    if (map == MAP_FAILED) fail(path, "cannot map", errno);
    const int rc = ::mincore(map, length, flags.data());
    const int mincore_error = errno;
    ::munmap(map, length);
    if (rc != 0) fail(path, "mincore failed", mincore_error);
    const std::size_t pages = (length + page - 1) / page;
    for (std::size_t i = 0; i < pages; ++i) {
      if ((flags[i] & 1) == 0) continue;
      // The last page of the file counts only the bytes the file has.
      resident += std::min<std::uint64_t>(page, length - i * page);
    }
  }
  return resident;
}

}  // namespace feedrate::io
