// Reads from a local disk (internal to loader/; a SampleSource, sample_source.h): image folders
// and file lists read one file per sample; tar shards read members that lie close together in a
// shard as one sequential chunk of up to tar_chunk_bytes (what a seeking disk needs;
// io/chunk_plan.h), a member alone in place. Every read of the batch lands back to back in the
// slot's `encoded` buffer, and each sample's bytes are addressed where they lie, inside a chunk
// or not: decoders read members in place, nothing is copied again.
//
// Pack cache (loader/cache/pack_cache.h): a sample with a cache entry is read from its segment,
// by a reader of its own without the throttle (the throttle emulates the source's disk), and
// checked; one that reads badly is forgotten and the batch read again, that sample from the
// source.
//
// Errors are per sample: "FILE: cannot open: REASON", or "FILE: read failed at byte N: REASON"
// (an unexpected end of file says how many bytes of how many arrived). A chunk that failed
// part-way still delivers every member that ends before the failure.
//
// Thread-safety: as SampleSource.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loader/cache/pack_cache.h"
#include "loader/pipeline/sample_source.h"

namespace feedrate {

class LocalReads final : public SampleSource {
 public:
  // `reader` reads the dataset (made by the caller: io::Reader::create, or a test double);
  // opens the tar shards of `dataset` for its lifetime (throws feedrate::Error naming the shard
  // when one cannot be opened). tar_chunk_bytes 0 reads one member at a time. `cache` (may be
  // null) outlives the source.
  LocalReads(const Dataset& dataset, std::unique_ptr<io::Reader> reader, std::string fallback,
             const io::ReaderOptions& options, std::uint64_t tar_chunk_bytes, PackCache* cache);

  void start_epoch(EpochReads) override {}
  void read(detail::Slot& slot) override;
  const io::ReadStats& stats() const override { return reader_->stats(); }
  std::string backend_name() const override { return io::backend_name(reader_->backend()); }
  const std::string& fallback_reason() const override { return fallback_reason_; }

 private:
  // One attempt at the batch; false when a cached sample read badly (forgotten: read again).
  bool read_once(detail::Slot& slot);
  // Append one read per sample, or per chunk, to slot.reads with read_sizes_; set each
  // sample's read_of_sample and its offset in that read (encoded_offset, for now).
  void plan_files(detail::Slot& slot);
  void plan_chunks(detail::Slot& slot);
  void plan_cached(detail::Slot& slot);
  void add_read(detail::Slot& slot, int fd, std::uint64_t offset, std::uint64_t size);
  // Places the planned reads back to back in slot.encoded (grown when short).
  void lay_out(detail::Slot& slot);
  // False when a cached sample read badly.
  bool check_results(detail::Slot& slot);

  const Dataset& dataset_;
  const std::uint64_t tar_chunk_bytes_;
  std::unique_ptr<io::Reader> reader_;
  const std::string fallback_reason_;
  std::vector<io::File> shared_files_;     // tar shards, open for the source's lifetime
  std::vector<std::uint64_t> read_sizes_;  // per planned read, until lay_out()
  std::vector<std::size_t> by_position_;   // plan_chunks: samples in shard order

  PackCache* cache_;                          // null: no cache
  std::unique_ptr<io::Reader> cache_reader_;  // for cache segments: no throttle
};

}  // namespace feedrate
