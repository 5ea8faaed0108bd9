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

// Fisher-Yates with our own generator: the permutation is the same on every platform and
// standard library, unlike std::shuffle.
template <typename T>
void permute(std::span<T> items, decode::Rng& rng) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.below(i)]);
}

// kBlocks: the blocks in a seeded order, then each window's samples shuffled together.
std::vector<std::uint32_t> blocks_sequence(std::size_t dataset_size, const SamplerOptions& options,
                                           std::uint64_t epoch) {
  std::vector<std::uint32_t> starts(options.block_starts.begin(), options.block_starts.end());
  if (starts.empty()) {
    starts.resize(dataset_size);
    std::iota(starts.begin(), starts.end(), 0u);
  }
  const std::size_t blocks = starts.size();
  const auto end_of = [&](std::size_t b) {
    return b + 1 < blocks ? starts[b + 1] : static_cast<std::uint32_t>(dataset_size);
  };
  std::vector<std::uint32_t> block_order(blocks);
  std::iota(block_order.begin(), block_order.end(), 0u);
  decode::Rng block_rng(decode::mix64(options.seed) ^ decode::mix64(epoch + 0xb10c));
  permute(std::span(block_order), block_rng);

  const std::size_t window = std::max<std::size_t>(1, options.window_blocks);
  std::vector<std::uint32_t> sequence;
  sequence.reserve(dataset_size);
  for (std::size_t first = 0; first < blocks; first += window) {
    const std::size_t window_start = sequence.size();
    for (std::size_t b = first; b < std::min(blocks, first + window); ++b) {
      for (std::uint32_t i = starts[block_order[b]]; i < end_of(block_order[b]); ++i) {
        sequence.push_back(i);
      }
    }
    decode::Rng rng(decode::mix64(options.seed) ^ decode::mix64(epoch + 0x5eed) ^
                    decode::mix64(first / window + 1));
    permute(std::span(sequence).subspan(window_start), rng);
  }
  return sequence;
}

}  // namespace

std::vector<std::uint32_t> storage_blocks(std::span<const std::uint64_t> sizes,
                                          std::span<const std::uint64_t> offsets,
                                          std::span<const std::uint32_t> files,
                                          std::uint64_t block_bytes) {
  std::vector<std::uint32_t> starts;
  std::uint64_t block_begin = 0;  // offset of the block's first byte, or bytes summed so far
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::uint64_t begin = offsets.empty() ? 0 : offsets[i];
    bool fresh = starts.empty() || (!files.empty() && files[i] != files[i - 1]);
    if (!fresh && offsets.empty()) {
      fresh = block_begin + sizes[i] > block_bytes;
    } else if (!fresh) {
      fresh = begin < block_begin || begin + sizes[i] - block_begin > block_bytes;
    }
    if (fresh) {
      starts.push_back(static_cast<std::uint32_t>(i));
      block_begin = begin;
    }
    if (offsets.empty()) block_begin += sizes[i];
  }
  return starts;
}

std::size_t window_blocks(std::uint64_t window_bytes, std::uint64_t block_bytes) {
  return block_bytes == 0 ? 1 : std::max<std::uint64_t>(1, window_bytes / block_bytes);
}

std::vector<std::uint32_t> epoch_sequence(std::size_t dataset_size, const SamplerOptions& options,
                                          std::uint64_t epoch) {
  if (options.shuffle == ShuffleMode::kBlocks) {
    return blocks_sequence(dataset_size, options, epoch);
  }
  std::vector<std::uint32_t> order(dataset_size);
  std::iota(order.begin(), order.end(), 0u);
  if (options.shuffle == ShuffleMode::kFull) {
    decode::Rng rng(decode::mix64(options.seed) ^ decode::mix64(epoch + 0x5eed));
    permute(std::span(order), rng);
  }
  return order;
}

std::vector<std::uint32_t> epoch_order(std::size_t dataset_size, const SamplerOptions& options,
                                       std::uint64_t epoch, std::size_t dealt_from) {
  const std::vector<std::uint32_t> order = epoch_sequence(dataset_size, options, epoch);
  dealt_from = std::min(dealt_from, dataset_size);
  const std::size_t rest = dataset_size - dealt_from;
  const std::size_t total = dealt_total(dataset_size, options, dealt_from);
  // Position k of the deal: the rest of the sequence, then its start again as padding.
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
