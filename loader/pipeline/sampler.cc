#include "loader/pipeline/sampler.h"

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
  // The first sample of part `part` of `block` cut into `parts` (part == parts: its end).
  std::uint32_t part_begin(std::size_t block, std::size_t part, std::size_t parts) const {
    return begin(block) + static_cast<std::uint32_t>((end(block) - begin(block)) * part / parts);
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

// The ranks kBlocks deals the epoch's blocks to.
std::size_t blocks_ranks(const SamplerOptions& options) {
  return static_cast<std::size_t>(options.blocks_world_size > 0 ? options.blocks_world_size
                                                                : options.world_size);
}

// kBlocks: one rank's stream, its `mine` blocks window by window, each window's samples
// shuffled together (the first window's part by part).
std::vector<std::uint32_t> rank_stream(const BlockOrder& blocks,
                                       const std::vector<std::uint32_t>& mine,
                                       const SamplerOptions& options, std::uint64_t epoch,
                                       std::size_t rank) {
  const std::size_t window = window_of(options);
  std::vector<std::uint32_t> stream;
  stream.reserve(blocks.size);
  for (std::size_t first = 0, w = 0; first < mine.size(); first += window, ++w) {
    const std::size_t end = std::min(mine.size(), first + window);
    const std::size_t parts = w == 0 ? kFirstWindowParts : 1;
    for (std::size_t part = 0; part < parts; ++part) {
      const std::size_t start = stream.size();
      for (std::size_t b = first; b < end; ++b) {
        const std::uint32_t from = blocks.part_begin(mine[b], part, parts);
        const std::uint32_t to = blocks.part_begin(mine[b], part + 1, parts);
        for (std::uint32_t i = from; i < to; ++i) stream.push_back(i);
      }
      decode::Rng rng(
          decode::mix64(options.seed) ^ decode::mix64(epoch + 0x5eed) ^
          decode::mix64((std::uint64_t{rank} << 40) | (std::uint64_t{part} << 32) | (w + 1)));
      permute(std::span(stream).subspan(start), rng);
    }
  }
  return stream;
}

// kBlocks: the blocks in a seeded order, dealt round-robin to the ranks; each rank's stream
// (rank_stream) is cut or filled to n / ranks samples (the longer streams' tails fill the shorter
// ones, in rank order), and the sequence takes one sample of each stream in turn, then the
// n % ranks samples left over. Dealt round-robin (epoch_order), each rank then reads its own
// blocks, and only a few others' at the end of the epoch.
std::vector<std::uint32_t> blocks_sequence(std::size_t dataset_size, const SamplerOptions& options,
                                           std::uint64_t epoch) {
  const BlockOrder blocks = block_order(dataset_size, options, epoch);
  const std::size_t ranks = blocks_ranks(options);
  std::vector<std::vector<std::uint32_t>> streams(ranks);
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    std::vector<std::uint32_t> mine;
    for (std::size_t b = rank; b < blocks.order.size(); b += ranks) mine.push_back(blocks.order[b]);
    streams[rank] = rank_stream(blocks, mine, options, epoch, rank);
  }
  const std::size_t each = dataset_size / ranks;
  std::vector<std::uint32_t> spare;
  for (auto& stream : streams) {
    if (stream.size() <= each) continue;
    spare.insert(spare.end(), stream.begin() + static_cast<std::ptrdiff_t>(each), stream.end());
    stream.resize(each);
  }
  std::size_t next = 0;
  for (auto& stream : streams) {
    while (stream.size() < each) stream.push_back(spare[next++]);
  }
  std::vector<std::uint32_t> sequence;
  sequence.reserve(dataset_size);
  for (std::size_t k = 0; k < each; ++k) {
    for (const auto& stream : streams) sequence.push_back(stream[k]);
  }
  sequence.insert(sequence.end(), spare.begin() + static_cast<std::ptrdiff_t>(next), spare.end());
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
  const std::size_t first_windows = window_of(options) * blocks_ranks(options);
  for (std::size_t b = 0; b < std::min(blocks.order.size(), first_windows); ++b) {
    first_window[blocks.order[b]] = true;
  }
  std::vector<std::uint32_t> units;
  for (std::size_t block = 0; block < blocks.starts.size(); ++block) {
    for (std::size_t part = 0; part < (first_window[block] ? kFirstWindowParts : 1); ++part) {
      const std::uint32_t begin = blocks.part_begin(block, part, kFirstWindowParts);
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
