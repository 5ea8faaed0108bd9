// Indexes the regular-file members of a tar archive (POSIX ustar, GNU long names, pax `path`
// and `size` records) by byte offset, so that members are read in place and never extracted.
//
// Thread-safety: a pure function of the file's bytes; call it from any thread.
// Errors: a malformed archive throws TarError whose message names the file, the byte offset
// and the problem (bad checksum, member past the end of the file, bad size field, link or
// device entry, a name that is absolute or contains "..").
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace feedrate::io {

struct TarMember {
  std::string name;          // path inside the archive
  std::uint64_t offset = 0;  // of the member's first data byte in the archive
  std::uint64_t size = 0;    // bytes
};

class TarError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Returns the regular-file members in archive order; directories and pax global headers are
// skipped. `fd` must be open for reading; `path` is used in messages only.
std::vector<TarMember> index_tar(int fd, const std::filesystem::path& path);

// As index_tar, for an archive that may be cut short (an interrupted download): when a member
// or a header runs past the end of the file, or the file is empty, returns the members whole
// before the cut and sets `cut` to what index_tar would throw, less the path ("malformed tar at
// byte N: ..."); otherwise clears it. Other faults throw as in index_tar.
std::vector<TarMember> index_tar_prefix(int fd, const std::filesystem::path& path,
                                        std::string& cut);

}  // namespace feedrate::io
