// Which samples an epoch visits, in which order, on this rank. Thread-safety: pure functions.
//
// Semantics follow torch.utils.data.DistributedSampler: the whole dataset is permuted (seeded
// by seed and epoch) or kept in order; with pad_shards (the default) it is padded by repeating
// its start so that every rank gets ceil(n / world) samples, without it the tail is dropped so
// every rank gets floor(n / world); rank r then takes positions r, r + world, r + 2 world, ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace feedrate {

struct SamplerOptions {
  bool shuffle = true;
  std::uint64_t seed = 0;
  int rank = 0;
  int world_size = 1;
  bool pad_shards = true;
};

// The dataset indices this rank visits in `epoch`, in delivery order.
//
// `dealt_from` > 0 deals only the rest of the epoch: the permutation's first `dealt_from`
// samples were consumed (by a run that may have had another world size, see loader_state.h);
// the others are padded (with the permutation's start, as without it) or cut to a multiple of
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
