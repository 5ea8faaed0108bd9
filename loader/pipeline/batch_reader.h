// The read stage (internal to loader/): plans and issues the reads of one batch, and words
// their failures. Runs on the I/O thread only.
//
// Plan: image folders and file lists read one file per sample; tar shards read members that
// lie close together in a shard as one sequential chunk of up to tar_chunk_bytes (what a
// seeking disk needs; io/chunk_plan.h), a member alone in place. Every read of the batch lands
// back to back in the slot's `encoded` buffer, and each sample's bytes are addressed where they
// lie, inside a chunk or not: decoders read members in place, nothing is copied again.
//
// Blocks (shuffle=blocks on tar shards): whole storage blocks are read and held by a
// BlockStore (block_store.h), and each sample's bytes are copied from its block into the slot.
//
// Pack cache (pack_cache.h): a sample with a cache entry is read from its segment, by a reader
// of its own without the throttle (the throttle emulates the source's disk), and checked; one
// that reads badly is forgotten and the batch read again, that sample from the source.
//
// Remote datasets (s3://, https://): a RemoteWindow (remote_window.h) reads ahead across
// batches, and each sample's bytes are copied from it into the slot. With cache_dir, samples the
// local-disk cache (loader/cache/remote_mirror.h) holds are read from it and checked; one that
// reads badly is fetched again from the store, alone.
//
// Errors are per sample (Slot::errors): "FILE: cannot open: REASON", or "FILE: read failed at
// byte N: REASON" (an unexpected end of file says how many bytes of how many arrived). A chunk
// or block that failed part-way still delivers every member that ends before the failure.
//
// Thread-safety: one thread (the I/O thread) calls read(); backend() and fallback_reason() are
// fixed after construction.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "io/file.h"
#include "io/reader.h"
#include "loader/cache/pack_cache.h"
#include "loader/pipeline/block_store.h"
#include "loader/pipeline/remote_window.h"
#include "loader/pipeline/slot.h"

namespace feedrate {

class BatchReader {
 public:
  // Makes the io::Reader; tests pass a test double (fault injection) instead of Reader::create.
  using ReaderFactory =
      std::function<std::unique_ptr<io::Reader>(const io::ReaderOptions&, std::string*)>;

  // Opens the tar shards of `dataset` for its lifetime (throws feedrate::Error naming the
  // shard when one cannot be opened). tar_chunk_bytes 0 reads one member at a time.
  // `blocks` (tar shards and shuffle=blocks only) turns on block reads.
  // `cache` (may be null) outlives the reader.
  BatchReader(const Dataset& dataset, const io::ReaderOptions& options,
              std::uint64_t tar_chunk_bytes, const ReaderFactory& make_reader,
              std::unique_ptr<BlockStore> blocks = nullptr, PackCache* cache = nullptr,
              std::unique_ptr<RemoteWindow> remote = nullptr, RemoteMirror* mirror = nullptr);

  // Block reads: this rank's `order` for the epoch and the epoch's read units
  // (BlockStore::start_epoch); a remote source's read-ahead: the samples the epoch's batches take
  // and those the next epoch's are expected to (RemoteWindow::start_epoch). Call before the
  // epoch's first read().
  void start_epoch(const std::vector<std::uint32_t>& order, const std::vector<std::uint32_t>& units,
                   std::size_t taken, std::vector<std::uint32_t> next);

  // Reads the samples slot.indices[0, slot.count): fills labels, errors, encoded and
  // encoded_offset. Returns when every read has finished or failed.
  void read(detail::Slot& slot);
  // Block reads: reads the next `blocks` look-ahead blocks (BlockStore::plan_ahead); nothing
  // otherwise. Read failures wait for a batch that needs the block. Returns whether it read
  // anything.
  bool read_ahead(std::size_t blocks);

  // The reads as they ran. A remote dataset's: the samples delivered from the store and the
  // local-disk cache, with the store's time to first byte as the latency and its requests in
  // flight.
  const io::ReadStats& stats() const { return remote_ ? remote_stats_ : reader_->stats(); }
  // The remote read-ahead's figures; null for a local dataset.
  const RemoteWindow* remote() const { return remote_.get(); }
  io::Backend backend() const { return reader_->backend(); }
  // Why io_uring is not in use; empty when it is.
  const std::string& fallback_reason() const { return fallback_reason_; }

 private:
  // Append one read per sample, or per chunk, to slot.reads with read_sizes_; set each
  // sample's read_of_sample and its offset in that read (encoded_offset, for now).
  // One attempt at the batch; false when a cached sample read badly (forgotten: read again).
  bool read_once(detail::Slot& slot);
  void plan_files(detail::Slot& slot);
  void plan_chunks(detail::Slot& slot);
  void plan_cached(detail::Slot& slot);
  void add_read(detail::Slot& slot, int fd, std::uint64_t offset, std::uint64_t size);
  // Places the planned reads back to back in slot.encoded (grown when short).
  void lay_out(detail::Slot& slot);
  // False when a cached sample read badly.
  bool check_results(detail::Slot& slot);
  // "WHERE: read failed at byte N: REASON" for sample `index`, which `request` held.
  std::string read_failure(std::uint32_t index, const io::ReadRequest& request) const;
  // Block reads: reads the blocks the batch needs (and look-ahead ones), copies the members.
  void read_blocks(detail::Slot& slot);
  // Remote datasets: takes the batch's samples from the read-ahead.
  void read_remote(detail::Slot& slot);
  // Reads the samples the local-disk cache holds, checks them, and fetches again from the store
  // only those that read badly.
  void read_mirrored(detail::Slot& slot);

  const Dataset& dataset_;
  const std::uint64_t tar_chunk_bytes_;
  std::string fallback_reason_;
  std::unique_ptr<io::Reader> reader_;
  std::vector<io::File> shared_files_;     // tar shards, open for the reader's lifetime
  std::vector<std::uint64_t> read_sizes_;  // per planned read, until lay_out()
  std::vector<std::size_t> by_position_;   // plan_chunks: samples in shard order

  PackCache* cache_;                          // null: no cache
  std::unique_ptr<io::Reader> cache_reader_;  // for cache segments: no throttle

  std::unique_ptr<BlockStore> blocks_;        // null: no block reads
  std::vector<io::ReadRequest> block_reads_;  // of one batch

  std::unique_ptr<RemoteWindow> remote_;       // null: a local dataset
  RemoteMirror* mirror_;                       // null: no local-disk cache of the remote samples
  std::unique_ptr<io::RangeFetcher> refetch_;  // samples whose cached copy read badly
  io::ReadStats remote_stats_;                 // of a remote dataset, for stats()
};

}  // namespace feedrate
