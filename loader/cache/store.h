// The pack cache's folder for one source (internal to loader/; see pack_cache.h): which samples
// it holds and where, for the read stage.
//
// Folder: CACHE_DIR/<source name key>-<source key> (pack_cache_key.h), holding segments
// (pack_cache_segment.h) and a file `lock`. Every loader that uses the folder holds a shared
// flock on `lock` for its lifetime; a loader whose source key differs (the source changed)
// retires the other folders of the same source by taking their lock exclusively, without
// waiting, and deleting them: a folder still in use by a live loader is left for a later run.
// Segments are immutable once published and every writer writes its own, so loaders on one
// machine (ranks, or unrelated runs) share the folder without further locking.
//
// load() reads the segments published since the last load(): a segment whose index does not
// check (cut short, altered, unreadable) is removed, with a warning. When several segments hold
// a sample, the latest (by name, which starts with its creation time) wins: a sample whose
// entry went bad and was cached again reads the new entry.
//
// Thread-safety: load() on one thread while no other uses the store; then find(), fd() and
// forget() on one thread (the I/O thread); the counters from any thread once load() returned.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "io/file.h"
#include "loader/cache/segment.h"

namespace feedrate {

class PackCacheStore {
 public:
  // The cache format's version, part of the source key.
  static constexpr std::uint32_t kFormatVersion = 1;

  struct Entry {
    std::uint32_t segment = kNone;  // index into the open segments
    std::uint32_t size = 0;
    std::uint64_t offset = 0;
    std::uint64_t checksum = 0;
  };
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // Opens CACHE_DIR's folder for `dataset` (indexed from `source`), creating it, and retires
  // stale folders of the same source. Throws feedrate::Error naming the folder when it cannot
  // be created or locked. Segments are opened buffered.
  PackCacheStore(const std::filesystem::path& cache_dir, const Dataset& dataset,
                 const std::string& source);
  ~PackCacheStore();
  PackCacheStore(const PackCacheStore&) = delete;
  PackCacheStore& operator=(const PackCacheStore&) = delete;

  const std::filesystem::path& folder() const { return folder_; }
  // Reads newly published segments; appends a line per problem to `warnings`.
  void load(std::vector<std::string>& warnings);

  // The sample's entry, or null.
  const Entry* find(std::uint32_t sample) const {
    const Entry& entry = entries_[sample];
    return entry.segment == kNone ? nullptr : &entry;
  }
  int fd(const Entry& entry) const { return segments_[entry.segment].file.fd(); }
  // "FOLDER/NAME.dat at byte N", for messages.
  std::string describe(const Entry& entry) const;
  // Drops a sample's entry (it read badly): it is read from the source from now on.
  void forget(std::uint32_t sample);

  std::uint64_t samples() const { return samples_; }            // with an entry
  std::uint64_t entry_bytes() const { return entry_bytes_; }    // of those entries
  std::uint64_t source_bytes() const { return source_bytes_; }  // of those samples in the source
  std::uint64_t disk_bytes() const { return disk_bytes_; }      // of the segments loaded
  // A fresh segment name: creation time, process and a counter, so names sort by age (one
  // thread at a time: the cache writer).
  std::string new_segment_name();

 private:
  struct Segment {
    std::filesystem::path data;
    io::File file;
  };

  void open_folder(const std::filesystem::path& cache_dir, const std::string& name_key,
                   const std::string& key);
  void retire_stale_folders(const std::filesystem::path& cache_dir, const std::string& name_key,
                            const std::string& key);

  const Dataset& dataset_;
  std::filesystem::path folder_;
  int lock_fd_ = -1;
  std::vector<Entry> entries_;  // per sample of the dataset
  std::vector<Segment> segments_;
  std::set<std::string> loaded_;  // index file names
  std::atomic<std::uint64_t> samples_{0}, entry_bytes_{0}, source_bytes_{0}, disk_bytes_{0};
  std::uint64_t names_made_ = 0;
};

}  // namespace feedrate
