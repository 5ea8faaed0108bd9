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
std::vector<std::uint32_t> epoch_order(std::size_t dataset_size, const SamplerOptions& options,
                                       std::uint64_t epoch);

// Number of batches of `batch_size` from `samples` samples; drop_last drops a partial one.
std::size_t batch_count(std::size_t samples, std::size_t batch_size, bool drop_last);

}  // namespace feedrate
