// Cold-cache measurement: drops a file's pages from the page cache so that the next read comes
// from the disk, and counts how much of a file is cached (to check that it worked).
//
// Eviction is best effort: the kernel keeps pages that are mapped by some process, dirty pages
// it has not yet written back, and pages another reader brings back in meanwhile.
//
// Thread-safety: both functions only touch the file named; call them from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <system_error>

namespace feedrate::io {

// posix_fadvise(POSIX_FADV_DONTNEED) on the whole file, after fdatasync so that a freshly
// written file (a dataset just generated) has no dirty pages that would stay. fdatasync costs
// nothing for files that are only read. Returns the error of open or posix_fadvise.
std::error_code evict_from_page_cache(const std::filesystem::path& path);

// Bytes of the file in the page cache, from mincore over a read-only mapping of the file, in
// windows so that memory stays small for huge files. Throws std::system_error naming the file
// when it cannot be opened, mapped or queried.
std::uint64_t resident_bytes(const std::filesystem::path& path);

}  // namespace feedrate::io
