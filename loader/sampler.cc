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

// kBlocks: each block's first sample (one block per sample when none are given), and the
// blocks in the epoch's seeded order.
struct BlockOrder {
  std::vector<std::uint32_t> starts;
  std::vector<std::uint32_t> order;
  std::size_t size = 0;  // samples

  std::uint32_t begin(std::size_t block) const { return starts[block]; }
  std::uint32_t end(std::size_t block) const {
    return block + 1 < starts.size() ? starts[block + 1] : static_cast<std::uint32_t>(size);
  }
  // The first sample of part `part` of `block` cut into kFirstWindowParts.
  std::uint32_t part_begin(std::size_t block, std::size_t part) const {
    return begin(block) +
           static_cast<std::uint32_t>((end(block) - begin(block)) * part / kFirstWindowParts);
  }
};

BlockOrder block_order(std::size_t dataset_size, const SamplerOptions& options,
                       std::uint64_t epoch) {
  BlockOrder blocks;
  blocks.size = dataset_size;
  blocks.starts.assign(options.block_starts.begin(), options.block_starts.end());
  if (blocks.starts.empty()) {
    blocks.starts.resize(dataset_size);
    std::iota(blocks.starts.begin(), blocks.starts.end(), 0u);
  }
  blocks.order.resize(blocks.starts.size());
  std::iota(blocks.order.begin(), blocks.order.end(), 0u);
  decode::Rng rng(decode::mix64(options.seed) ^ decode::mix64(epoch + 0xb10c));
  permute(std::span(blocks.order), rng);
  return blocks;
}

std::size_t window_of(const SamplerOptions& options) {
  return std::max<std::size_t>(1, options.window_blocks);
}

// kBlocks: the blocks in a seeded order, then each window's samples shuffled together (the
// first window's part by part).
std::vector<std::uint32_t> blocks_sequence(std::size_t dataset_size, const SamplerOptions& options,
                                           std::uint64_t epoch) {
  const BlockOrder blocks = block_order(dataset_size, options, epoch);
  const std::size_t count = blocks.order.size();
  const std::size_t window = window_of(options);
  std::vector<std::uint32_t> sequence;
  sequence.reserve(dataset_size);
  const auto shuffle_since = [&](std::size_t start, std::uint64_t stream) {
    decode::Rng rng(decode::mix64(options.seed) ^ decode::mix64(epoch + 0x5eed) ^
                    decode::mix64(stream));
    permute(std::span(sequence).subspan(start), rng);
  };
  const std::size_t first_end = std::min(count, window);
  for (std::size_t part = 0; part < kFirstWindowParts; ++part) {
    const std::size_t start = sequence.size();
    for (std::size_t b = 0; b < first_end; ++b) {
      const std::uint32_t block = blocks.order[b];
      const std::uint32_t end =
          part + 1 < kFirstWindowParts ? blocks.part_begin(block, part + 1) : blocks.end(block);
      for (std::uint32_t i = blocks.part_begin(block, part); i < end; ++i) sequence.push_back(i);
    }
    shuffle_since(start, (std::uint64_t{part} << 32) | 1);
  }
  for (std::size_t first = window; first < count; first += window) {
    const std::size_t start = sequence.size();
    for (std::size_t b = first; b < std::min(count, first + window); ++b) {
      const std::uint32_t block = blocks.order[b];
      for (std::uint32_t i = blocks.begin(block); i < blocks.end(block); ++i) {
        sequence.push_back(i);
      }
    }
    shuffle_since(start, first / window + 1);
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

std::vector<std::uint32_t> epoch_read_units(std::size_t dataset_size, const SamplerOptions& options,
                                            std::uint64_t epoch) {
  const BlockOrder blocks = block_order(dataset_size, options, epoch);
  std::vector<bool> first_window(blocks.order.size(), false);
  for (std::size_t b = 0; b < std::min(blocks.order.size(), window_of(options)); ++b) {
    first_window[blocks.order[b]] = true;
  }
  std::vector<std::uint32_t> units;
  for (std::size_t block = 0; block < blocks.starts.size(); ++block) {
    for (std::size_t part = 0; part < (first_window[block] ? kFirstWindowParts : 1); ++part) {
      const std::uint32_t begin = blocks.part_begin(block, part);
      if (begin < blocks.end(block) && (units.empty() || units.back() != begin)) {
        units.push_back(begin);
      }
    }
  }
  return units;
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
