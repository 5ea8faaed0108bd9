// The pack cache (LoaderOptions::cache_dir; internal to loader/): later epochs read
// restart-marked copies of the source's JPEGs from a local folder, written with CPU that
// delivery does not need.
//
// Epoch by epoch: begin_epoch() publishes what the writer wrote and loads what every loader
// sharing the folder published (pack_cache_store.h). The read stage asks find() for each sample
// and reads a cached one from its segment with an unthrottled reader of its own, then checks it
// (verify: read errors, the entry's checksum); a cached sample that reads badly is forgotten,
// with a warning, and read from the source in the same batch. The decode stage offers every
// sample it decoded from the source's bytes to the writer (pack_cache_writer.h), which caches it
// as the pacing allows. Order, labels and resumable state do not depend on the cache, and a
// packed JPEG decodes to the same pixels as its source (decode/jpeg_pack.h), so a cached run
// delivers the same batches as an uncached one.
//
// What is not done: shuffle=blocks reads its blocks from the source (the cache is written but
// not read there).
//
// Thread-safety: begin_epoch() on the consumer's thread with no I/O thread running; find(),
// fd(), verify() and count() on the I/O thread; offer() from the decode threads;
// figures() from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "feedrate/report.h"
#include "loader/cache/store.h"
#include "loader/cache/writer.h"

namespace feedrate {

// Test seams: the writer's writes (full disks, failing writes) and pacing off
// (PackCacheWriterOptions::unpaced).
struct PackCacheHooks {
  SegmentWriteFn write;
  bool unpaced = false;
};

class PackCache {
 public:
  // `counters` feeds the pacing (pack_cache_pacing.h), which times its windows on `clock` (it
  // outlives the cache).
  PackCache(const LoaderOptions& options, const Dataset& dataset,
            std::function<PacingCounters()> counters, const PackCacheHooks& hooks = {},
            io::Clock& clock = io::Clock::real());
  ~PackCache();

  void begin_epoch();

  const PackCacheStore::Entry* find(std::uint32_t sample) const { return store_.find(sample); }
  int fd(const PackCacheStore::Entry& entry) const { return store_.fd(entry); }
  // Whether `bytes`, read for `sample` from its entry, are the entry's. When not (or when
  // `read_error` is set), forgets the entry with a warning naming it and the sample: the caller
  // reads the sample from the source.
  bool verify(std::uint32_t sample, std::span<const std::uint8_t> bytes,
              const std::string& read_error);
  // A batch's samples as read: from the cache and from the source.
  void count(std::uint64_t hits, std::uint64_t misses) {
    hits_ += hits;
    misses_ += misses;
  }

  void offer(std::uint32_t sample, std::span<const std::uint8_t> bytes) {
    writer_->offer(sample, bytes);
  }

  CacheFigures figures() const;

 private:
  const Dataset& dataset_;
  PackCacheStore store_;
  std::unique_ptr<PackCacheWriter> writer_;
  std::atomic<std::uint64_t> hits_{0}, misses_{0}, fallbacks_{0};
  mutable std::mutex warnings_mutex_;
  std::vector<std::string> warnings_;  // the store's and the read stage's
};

}  // namespace feedrate
