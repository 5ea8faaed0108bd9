#include "loader/sampler.h"

#include <numeric>

#include "decode/random.h"

namespace feedrate {

std::vector<std::uint32_t> epoch_order(std::size_t dataset_size, const SamplerOptions& options,
                                       std::uint64_t epoch) {
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
  const auto world = static_cast<std::size_t>(options.world_size);
  std::size_t total = 0;
  if (options.pad_shards) {
    total = (dataset_size + world - 1) / world * world;
    for (std::size_t i = dataset_size; i < total; ++i) order.push_back(order[i % dataset_size]);
  } else {
    total = dataset_size / world * world;
    order.resize(total);
  }
  std::vector<std::uint32_t> mine;
  mine.reserve(total / world);
  for (std::size_t i = static_cast<std::size_t>(options.rank); i < total; i += world) {
    mine.push_back(order[i]);
  }
  return mine;
}

std::size_t batch_count(std::size_t samples, std::size_t batch_size, bool drop_last) {
  return drop_last ? samples / batch_size : (samples + batch_size - 1) / batch_size;
}

}  // namespace feedrate
