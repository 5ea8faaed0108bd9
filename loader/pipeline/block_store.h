// The whole storage blocks the reader holds for shuffle=blocks on tar shards (internal to
// loader/). A batch's samples come from a window of blocks (loader/pipeline/sampler.h), so each
// read unit of the epoch (a block, or a part of one of the first window's blocks: epoch_read_units)
// is read whole, in one sequential read, and held until the last sample of this rank's epoch order
// that lies in it has been copied out; then its buffer is reused for another unit. Below,
// "block" means read unit.
//
// What is read when: the blocks a batch needs that are not held (plan), and look-ahead
// (plan_ahead): the next blocks of the epoch order not held yet, in the order of their first
// use, while the blocks held take less than `max_held_bytes`. The I/O thread reads ahead whenever
// it would otherwise wait for a free batch slot (SlotRing::acquire's `meanwhile`), so the disk
// keeps reading while the decoders are busy: a window's first batch needs nearly all of the
// window's blocks, and without look-ahead the decoders would wait on that burst. A needed
// block is read even beyond max_held_bytes (the look-ahead stops there).
//
// Thread-safety: the I/O thread only (BlockReads, block_reads.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "io/file.h"
#include "io/reader.h"

namespace feedrate {

// shuffle=blocks: the dataset's storage blocks of about tar_chunk_bytes (storage_blocks in
// loader/pipeline/sampler.h); empty for the other modes.
std::vector<std::uint32_t> blocks_of(const Dataset& dataset, const LoaderOptions& options);
// shuffle=blocks: the blocks of a window (shuffle_window_mb over tar_chunk_bytes); else 0.
std::size_t window_blocks_of(const LoaderOptions& options);
// The blocks a BlockStore may hold through look-ahead (tar shards and shuffle=blocks only,
// else 0): a window, plus the next window's, up to a batch of them. Its max_held_bytes is this
// many tar_chunk_bytes.
std::size_t held_blocks_of(const LoaderOptions& options, const Dataset& dataset);

class BlockStore {
 public:
  // Reads the tar shards of `dataset`; `max_held_bytes` bounds the bytes held through
  // look-ahead.
  BlockStore(const Dataset& dataset, std::uint64_t max_held_bytes);

  // Lets go of every block, takes the epoch's read units (`units`: epoch_read_units) and counts
  // each one's uses in this rank's `order` for the epoch.
  void start_epoch(const std::vector<std::uint32_t>& order,
                   const std::vector<std::uint32_t>& units);

  // Appends to `reads` (into held buffers; fds of `shards`, by file index) the reads of the
  // blocks that the batch's `indices` need. The batch's samples are the next ones of the epoch
  // order.
  void plan(std::span<const std::uint32_t> indices, std::span<const io::File> shards,
            std::vector<io::ReadRequest>& reads);
  // Appends the reads of up to `blocks` look-ahead blocks (none once max_held_bytes are held or
  // the epoch's blocks are all planned). After they ran, call finish_batch() with them.
  void plan_ahead(std::span<const io::File> shards, std::vector<io::ReadRequest>& reads,
                  std::size_t blocks);

  // After the planned reads ran: where sample `index`'s bytes are, or the failed read that
  // should have held them (then bytes is null).
  struct Found {
    const std::byte* bytes = nullptr;
    const io::ReadRequest* failed = nullptr;
  };
  Found find(std::uint32_t index, std::span<const io::ReadRequest> reads) const;

  // Sample `index` was copied out: its block goes after its last use.
  void used(std::uint32_t index);
  // The reads planned last (plan or plan_ahead) ran: blocks whose read failed are let go, to
  // be read again when needed.
  void finish_batch(std::span<const io::ReadRequest> reads);

 private:
  std::size_t block_of(std::uint32_t index) const;
  void add_read(std::size_t block, std::span<const io::File> shards,
                std::vector<io::ReadRequest>& reads);
  void release(std::size_t block);

  const Dataset& dataset_;
  const std::uint64_t max_held_bytes_;
  std::vector<std::uint32_t> starts_;          // this epoch's read units
  std::vector<std::uint32_t> uses_left_;       // per block, in this epoch's order
  std::vector<std::vector<std::byte>> held_;   // per block; empty when not held
  std::vector<std::vector<std::byte>> spare_;  // buffers of released blocks, for reuse
  std::uint64_t held_bytes_ = 0;
  std::vector<std::size_t> read_block_;  // the block each of this batch's reads fills
  std::vector<std::uint32_t> order_;     // this epoch's, for look-ahead
  std::size_t consumed_ = 0;             // samples of order_ planned so far
  std::size_t ahead_ = 0;                // look-ahead scan position in order_
};

}  // namespace feedrate
