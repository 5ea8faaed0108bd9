#include "loader/sampler.h"

#include <algorithm>
#include <numeric>

#include "decode/random.h"

namespace feedrate {

namespace {

// Samples of the deal, all ranks together: the rest padded up or cut down to whole rounds.
std::size_t dealt_total(std::size_t dataset_size, const SamplerOptions& options,
                        std::size_t dealt_from) {
  const std::size_t rest = dataset_size - std::min(dealt_from, dataset_size);
  const auto world = static_cast<std::size_t>(options.world_size);
  return options.pad_shards ? (rest + world - 1) / world * world : rest / world * world;
}

}  // namespace

std::vector<std::uint32_t> epoch_order(std::size_t dataset_size, const SamplerOptions& options,
                                       std::uint64_t epoch, std::size_t dealt_from) {
  std::vector<std::uint32_t> order(dataset_size);
  std::iota(order.begin(), order.end(), 0u);
  if (options.shuffle) {
    // Fisher-Yates with our own generator: the permutation is the same on every platform and
    // standard library, unlike std::shuffle.
    decode::Rng rng(decode::mix64(options.seed) ^ decode::mix64(epoch + 0x5eed));
    for (std::size_t i = dataset_size; i > 1; --i) {
      std::swap(order[i - 1], order[rng.below(i)]);
    }
  }
  dealt_from = std::min(dealt_from, dataset_size);
  const std::size_t rest = dataset_size - dealt_from;
  const std::size_t total = dealt_total(dataset_size, options, dealt_from);
  // Position k of the deal: the rest of the permutation, then its start again as padding.
  const auto at = [&](std::size_t k) {
    return k < rest ? order[dealt_from + k] : order[(k - rest) % dataset_size];
  };
  const auto world = static_cast<std::size_t>(options.world_size);
  std::vector<std::uint32_t> mine;
  mine.reserve(total / world);
  for (std::size_t k = static_cast<std::size_t>(options.rank); k < total; k += world) {
    mine.push_back(at(k));
  }
  return mine;
}

std::size_t samples_per_rank(std::size_t dataset_size, const SamplerOptions& options,
                             std::size_t dealt_from) {
  return dealt_total(dataset_size, options, dealt_from) /
         static_cast<std::size_t>(options.world_size);
}

std::size_t consumed_through(std::size_t dataset_size, const SamplerOptions& options,
                             std::size_t dealt_from, std::size_t samples_each) {
  const std::size_t each =
      std::min(samples_each, samples_per_rank(dataset_size, options, dealt_from));
  return std::min(dataset_size, dealt_from + static_cast<std::size_t>(options.world_size) * each);
}

std::size_t batch_count(std::size_t samples, std::size_t batch_size, bool drop_last) {
  return drop_last ? samples / batch_size : (samples + batch_size - 1) / batch_size;
}

}  // namespace feedrate
