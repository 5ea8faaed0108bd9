// Which samples an epoch visits, in which order, on this rank. Thread-safety: pure functions.
//
// Each epoch has one global sequence of every dataset index (epoch_sequence), the same whatever
// num_workers (and, but for blocks, the world size):
//   full    a seeded permutation (seed, epoch) of all samples;
//   blocks  the storage blocks (consecutive samples of about one chunk read, storage_blocks) in
//           a seeded order, dealt round-robin to the ranks; each rank's blocks go in windows of
//           `window_blocks`, whose samples are shuffled together, so a rank reads its own blocks
//           (and, to even the ranks' lengths, a few of others' at the end of the epoch). Each
//           rank's first window goes part by part (kFirstWindowParts), so that its first
//           batches need only the first part of each of its blocks (epoch_read_units). This
//           sequence depends on the world size the blocks are dealt to (blocks_world_size);
//   none    storage order.
// Semantics follow torch.utils.data.DistributedSampler: with pad_shards (the default) the
// sequence is padded by repeating its start so that every rank gets ceil(n / world) samples,
// without it the tail is dropped so every rank gets floor(n / world); rank r then takes
// positions r, r + world, r + 2 world, ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "feedrate/options.h"

namespace feedrate {

struct SamplerOptions {
  ShuffleMode shuffle = ShuffleMode::kFull;
  std::uint64_t seed = 0;
  int rank = 0;
  int world_size = 1;
  bool pad_shards = true;
  // kBlocks: the first sample of each storage block, ascending from 0 (storage_blocks; empty
  // means one block per sample), and the blocks of a window (at least 1). The span points into
  // storage the caller keeps alive during each call.
  std::span<const std::uint32_t> block_starts;
  std::size_t window_blocks = 1;
  // kBlocks: the ranks the epoch's blocks are dealt to: the world size at which the epoch began
  // (an epoch resumed at another world size keeps its sequence); 0 means world_size.
  int blocks_world_size = 0;
};

// Cuts storage order [0, sizes.size()) into blocks of consecutive samples: a block ends before
// a sample that would take its span (first byte to last byte, gaps included) beyond
// `block_bytes`, or, with `files` given (tar shards), before a sample of another file. A sample
// longer than block_bytes is a block of its own. `offsets` and `files` are per sample, or empty
// (then sizes are summed: files read one by one). Returns each block's first sample.
std::vector<std::uint32_t> storage_blocks(std::span<const std::uint64_t> sizes,
                                          std::span<const std::uint64_t> offsets,
                                          std::span<const std::uint32_t> files,
                                          std::uint64_t block_bytes);

// Blocks of a window: how many blocks of `block_bytes` fit in `window_bytes`, at least 1.
std::size_t window_blocks(std::uint64_t window_bytes, std::uint64_t block_bytes);

// kBlocks: the epoch's first window is cut into this many parts: part p holds the p-th part of
// the samples of each of its blocks (by count), and each part's samples are shuffled together
// before the next part's. Every batch still mixes all the window's blocks, but the decoders start
// once the first part of each block is read, not the whole window (the other windows are read while
// the one before them decodes). Three parts of a 4 MB block are still bandwidth-bound reads on an
// HDD (1.3 MB at 200 MB/s take as long as one of its ~150 operations a second).
inline constexpr std::size_t kFirstWindowParts = 3;

// kBlocks: what the epoch reads, each read whole: the storage blocks, those of every rank's
// first window cut into their kFirstWindowParts parts. Each unit's first sample, ascending from 0.
std::vector<std::uint32_t> epoch_read_units(std::size_t dataset_size, const SamplerOptions& options,
                                            std::uint64_t epoch);

// The epoch's global sequence of all `dataset_size` samples, as above (rank and pad_shards play
// no part, nor world_size but through blocks_world_size).
std::vector<std::uint32_t> epoch_sequence(std::size_t dataset_size, const SamplerOptions& options,
                                          std::uint64_t epoch);

// The dataset indices this rank visits in `epoch`, in delivery order.
//
// `dealt_from` > 0 deals only the rest of the epoch: the global sequence's first `dealt_from`
// samples were consumed (by a run that may have had another world size, see loader_state.h);
// the others are padded (with the sequence's start, as without it) or cut to a multiple of
// world_size and dealt round-robin. With dealt_from = world_size x k, rank r gets exactly what
// it would have got from position k on: resuming at the same world size changes nothing.
std::vector<std::uint32_t> epoch_order(std::size_t dataset_size, const SamplerOptions& options,
                                       std::uint64_t epoch, std::size_t dealt_from = 0);

// Samples of a deal (epoch_order with `dealt_from`) each rank gets.
std::size_t samples_per_rank(std::size_t dataset_size, const SamplerOptions& options,
                             std::size_t dealt_from = 0);

// Where the next deal starts once every rank of a deal that started at `dealt_from` consumed
// `samples_each` of its samples (ranks step in lock-step): dealt_from + world_size x
// samples_each, at most dataset_size (once the padding is reached, nothing is left).
std::size_t consumed_through(std::size_t dataset_size, const SamplerOptions& options,
                             std::size_t dealt_from, std::size_t samples_each);

// Number of batches of `batch_size` from `samples` samples; drop_last drops a partial one.
std::size_t batch_count(std::size_t samples, std::size_t batch_size, bool drop_last);

}  // namespace feedrate
