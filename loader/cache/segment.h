// One segment of the pack cache (loader/cache/pack_cache.h): a data file of cached samples back to
// back, and the index file that makes it visible. Internal to loader/; the one owner of the
// segment's format.
//
//   NAME.dat   the entries' bytes, nothing else
//   NAME.idx   JSON: {"format": "feedrate-cache-segment", "version": 1, "data": "NAME.dat",
//              "bytes": B, "entries": [[sample, offset, size, kind, xxh3], ...]}
//              sample: the source index's sample; kind: 0 packed JPEG, 1 the source's bytes
//              unchanged; xxh3: XXH3-64 of the entry's bytes
//
// Writing: SegmentWriter appends to NAME.dat.tmp, holding an exclusive flock on it, and
// publish() writes NAME.idx.tmp, renames NAME.dat.tmp to NAME.dat, then NAME.idx.tmp to
// NAME.idx, and only then releases the lock. A reader takes only NAME.idx files, so a crash at
// any point leaves at most files that no reader takes (*.tmp, or a NAME.dat without its index),
// which remove_stale_files() deletes once their writer's lock is gone.
// Reading: read_segment_index() checks the index against itself and against the data file's
// size; each entry's checksum is checked when it is read (PackCache::verify).
//
// Thread-safety: a SegmentWriter is used by one thread; read_segment_index() is a pure function.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

namespace feedrate {

enum class CacheEntryKind : std::uint8_t { kPacked = 0, kUnchanged = 1 };

struct SegmentEntry {
  std::uint32_t sample = 0;
  std::uint64_t offset = 0;  // in the data file
  std::uint32_t size = 0;
  CacheEntryKind kind = CacheEntryKind::kPacked;
  std::uint64_t checksum = 0;  // XXH3-64 of the bytes
};

std::uint64_t entry_checksum(std::span<const std::uint8_t> bytes);

// Writes `size` bytes to `fd` at its offset; the test seam for full disks and failing writes.
using SegmentWriteFn = std::function<std::error_code(int fd, const void* data, std::size_t size)>;
// The real one: write(2) until done, EINTR retried.
std::error_code write_all(int fd, const void* data, std::size_t size);

class SegmentWriter {
 public:
  // Creates FOLDER/NAME.dat.tmp. On failure is_open() is false and `error` says why.
  SegmentWriter(const std::filesystem::path& folder, std::string name, SegmentWriteFn write,
                std::error_code& error);
  ~SegmentWriter();  // an unpublished segment is removed
  SegmentWriter(const SegmentWriter&) = delete;
  SegmentWriter& operator=(const SegmentWriter&) = delete;

  bool is_open() const { return fd_ >= 0; }
  // Appends an entry. On a write error the segment is unusable: the caller drops it.
  std::error_code append(std::uint32_t sample, CacheEntryKind kind,
                         std::span<const std::uint8_t> bytes);
  std::uint64_t bytes() const { return bytes_; }
  const std::vector<SegmentEntry>& entries() const { return entries_; }
  // Makes the segment visible (see above). Afterwards the writer is closed.
  std::error_code publish();
  // Removes the unpublished segment now.
  void discard();

 private:
  std::filesystem::path folder_;
  std::string name_;
  SegmentWriteFn write_;
  int fd_ = -1;
  std::uint64_t bytes_ = 0;
  std::vector<SegmentEntry> entries_;
};

struct SegmentIndex {
  std::filesystem::path data;  // the data file
  std::uint64_t bytes = 0;
  std::vector<SegmentEntry> entries;
};

// Parses FOLDER/NAME.idx and checks it: entries inside the data's bytes, samples below
// `samples`, the data file present with exactly `bytes` bytes. Returns an empty string and fills
// `index`, or what is wrong ("FILE: PROBLEM").
std::string read_segment_index(const std::filesystem::path& index_file, std::uint64_t samples,
                               SegmentIndex& index);

// A problem of the cache, which never stops the loader: printed to stderr ("feedrate: pack cache:
// TEXT") and kept in `warnings` (the first kMaxCacheWarnings).
inline constexpr std::size_t kMaxCacheWarnings = 8;
void cache_warning(std::string text, std::vector<std::string>& warnings);

// Deletes FOLDER's *.tmp files and data files without an index whose writer is gone (no lock
// held on them). Returns how many it deleted.
std::size_t remove_stale_files(const std::filesystem::path& folder);

}  // namespace feedrate
