// The local-disk cache of a remote dataset (LoaderOptions::cache_dir with an s3:// or https://
// source; internal to loader/). Every remote sample is stored as it arrives, unchanged (no
// transcode: it costs a write of the bytes and no CPU worth measuring), at its own offset in a
// local sparse file per remote object, so that later epochs read it from the local disk; the
// ranks of a node share the folder.
//
// Layout: cache_dir/remote-<key>/ with objects/<file number> (the sparse copies) and `present`,
// a log of fixed-size records {sample index, size, xxh64 of the bytes} that every process
// appends to (O_APPEND: a record is one write, never interleaved) after its bytes are written.
// The key hashes the source, the index (Dataset::index_hash) and every object's size and ETag:
// a changed object gets a new folder, so stale bytes are never read. refresh() reads the
// records other processes appended since the last call.
//
// A sample read back is checked against its record (verify()); one that fails is forgotten, and
// only that sample is read again from the store. Storing stops, said in stats(), when the folder
// reaches cache_gb (0: no cap) or the disk's free space falls under 5%; a write error stops it
// too. Nothing here fails a run: the store stays the source of truth.
//
// Thread-safety: store() runs on the read-ahead's thread; contains() on any thread (an atomic
// flag per sample); refresh(), fd(), verify() and forget() on the I/O thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "feedrate/report.h"

namespace feedrate {

struct RemoteMirrorStats {
  std::uint64_t stored = 0;        // samples written by this process
  std::uint64_t stored_bytes = 0;  // their bytes
  std::uint64_t present = 0;       // samples the folder holds, by any process
  std::uint64_t verify_failures = 0;
  std::uint64_t hits = 0, misses = 0;  // samples read from the cache / the store
  std::string stopped;                 // why storing stopped, empty while it goes on
};

class RemoteMirror {
 public:
  // Opens (creating it if needed) the folder for `dataset` under `cache_dir`. Throws
  // feedrate::Error naming the folder when it cannot be created.
  RemoteMirror(const std::filesystem::path& cache_dir, const std::string& source,
               const Dataset& dataset, double cache_gb);
  ~RemoteMirror();
  RemoteMirror(const RemoteMirror&) = delete;
  RemoteMirror& operator=(const RemoteMirror&) = delete;

  const std::filesystem::path& folder() const { return folder_; }
  bool contains(std::uint32_t index) const {
    return present_[index].load(std::memory_order_acquire);
  }
  // The local copy of the dataset's file `file`, for reads at the samples' own offsets.
  int fd(std::uint32_t file) const { return fds_[file]; }
  // Writes sample `index`'s bytes to its place, then records it.
  void store(std::uint32_t index, std::span<const std::byte> bytes);
  // Whether `bytes`, read back for `index`, are the ones recorded.
  bool verify(std::uint32_t index, std::span<const std::byte> bytes);
  void forget(std::uint32_t index);
  // Takes in the records appended since the last call.
  void refresh();
  // Samples a batch read from the cache, and from the store.
  void count(std::uint64_t hits, std::uint64_t misses);
  RemoteMirrorStats stats() const;

 private:
  struct Record {
    std::uint32_t index;
    std::uint32_t size;
    std::uint64_t hash;
  };
  void stop_storing(std::string why);
  void take_record(const Record& record);

  const Dataset& dataset_;
  const double cache_bytes_cap_;
  std::filesystem::path folder_;
  std::vector<int> fds_;  // per dataset file, read-write
  int log_ = -1;
  std::uint64_t log_read_ = 0;  // bytes of the log taken in
  std::unique_ptr<std::atomic<bool>[]> present_;
  std::vector<std::uint64_t> hashes_;  // per sample, from its record

  mutable std::mutex mutex_;  // stats_, hashes_ of stored samples, the free-space check
  RemoteMirrorStats stats_;
  std::uint64_t folder_bytes_ = 0;
  std::uint64_t since_space_check_ = 0;
};

// The cache's figures as the report carries them (Report::cache): samples stored unchanged.
CacheFigures mirror_figures(const RemoteMirror& mirror, const Dataset& dataset);

}  // namespace feedrate
