// Sampler: permutations, determinism and torch DistributedSampler sharding semantics.
#include "loader/pipeline/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace feedrate {
namespace {

std::vector<std::uint32_t> iota(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

// shuffle=blocks over `starts` (kept alive by the caller), windows of `window` blocks.
SamplerOptions blocks_options(const std::vector<std::uint32_t>& starts, std::size_t window,
                              std::uint64_t seed) {
  SamplerOptions options;
  options.shuffle = ShuffleMode::kBlocks;
  options.seed = seed;
  options.block_starts = starts;
  options.window_blocks = window;
  return options;
}

// Blocks of `size` consecutive samples, `count` of them.
std::vector<std::uint32_t> even_blocks(std::uint32_t count, std::uint32_t size) {
  std::vector<std::uint32_t> starts;
  for (std::uint32_t b = 0; b < count; ++b) starts.push_back(size * b);
  return starts;
}

TEST(Sampler, SequentialOrderWithoutShuffle) {
  SamplerOptions options;
  options.shuffle = ShuffleMode::kNone;
  EXPECT_EQ(epoch_order(10, options, 0), iota(10));
  EXPECT_EQ(epoch_order(10, options, 7), iota(10));
}

TEST(Sampler, ShuffleIsAPermutationDeterministicInSeedAndEpoch) {
  SamplerOptions options;
  options.seed = 42;
  const auto a = epoch_order(1000, options, 0);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, iota(1000));
  EXPECT_NE(a, iota(1000));
  EXPECT_EQ(a, epoch_order(1000, options, 0));
  EXPECT_NE(a, epoch_order(1000, options, 1));
  options.seed = 43;
  EXPECT_NE(a, epoch_order(1000, options, 0));
}

TEST(Sampler, PaddedShardsMatchDistributedSampler) {
  // torch: total_size = ceil(10 / 4) * 4 = 12, indices padded with indices[:2], rank r takes
  // indices[r:12:4].
  SamplerOptions options;
  options.shuffle = ShuffleMode::kNone;
  options.world_size = 4;
  const std::vector<std::vector<std::uint32_t>> expected = {
      {0, 4, 8}, {1, 5, 9}, {2, 6, 0}, {3, 7, 1}};
  for (int rank = 0; rank < 4; ++rank) {
    options.rank = rank;
    EXPECT_EQ(epoch_order(10, options, 0), expected[rank]) << "rank " << rank;
  }
}

TEST(Sampler, DroppedShardsAreDisjointAndEqual) {
  SamplerOptions options;
  options.seed = 3;
  options.world_size = 4;
  options.pad_shards = false;
  std::set<std::uint32_t> seen;
  for (int rank = 0; rank < 4; ++rank) {
    options.rank = rank;
    const auto mine = epoch_order(10, options, 5);
    EXPECT_EQ(mine.size(), 2u);
    for (auto index : mine) EXPECT_TRUE(seen.insert(index).second) << "index " << index;
  }
  EXPECT_EQ(seen.size(), 8u);
}

TEST(Sampler, PaddingWrapsWhenWorldIsLargerThanDataset) {
  SamplerOptions options;
  options.shuffle = ShuffleMode::kNone;
  options.world_size = 5;
  for (int rank = 0; rank < 5; ++rank) {
    options.rank = rank;
    EXPECT_EQ(epoch_order(2, options, 0), std::vector<std::uint32_t>{std::uint32_t(rank % 2)});
  }
}

TEST(Sampler, ShardsOfOneShuffleCoverTheDataset) {
  SamplerOptions options;
  options.seed = 9;
  options.world_size = 3;
  std::vector<std::uint32_t> all;
  for (int rank = 0; rank < 3; ++rank) {
    options.rank = rank;
    const auto mine = epoch_order(100, options, 2);
    EXPECT_EQ(mine.size(), 34u);
    all.insert(all.end(), mine.begin(), mine.end());
  }
  std::set<std::uint32_t> unique(all.begin(), all.end());
  EXPECT_EQ(unique.size(), 100u);  // 102 slots: 100 samples and 2 padding repeats
}

TEST(Sampler, StorageBlocksCutAtTheByteLimitAndAtFiles) {
  // Tar members: offsets and files. Blocks end before a member that would span past 100 bytes
  // from the block's first byte, and at a new shard.
  const std::vector<std::uint64_t> sizes{30, 30, 30, 30, 150, 10, 10};
  const std::vector<std::uint64_t> offsets{0, 40, 80, 120, 200, 0, 20};
  const std::vector<std::uint32_t> files{0, 0, 0, 0, 0, 1, 1};
  EXPECT_EQ(storage_blocks(sizes, offsets, files, 100), (std::vector<std::uint32_t>{0, 2, 4, 5}));
  // Files read one by one: their sizes are summed.
  EXPECT_EQ(storage_blocks(sizes, {}, {}, 100), (std::vector<std::uint32_t>{0, 3, 4, 5}));
  EXPECT_EQ(storage_blocks(sizes, {}, {}, 1000), (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(window_blocks(10'000'000, 4 << 20), 2u);
  EXPECT_EQ(window_blocks(1, 4 << 20), 1u);
}

TEST(Sampler, BlocksShuffleWithinWindowsOfShuffledBlocks) {
  // 100 samples in 20 blocks of 5; windows of 4 blocks.
  const std::vector<std::uint32_t> starts = even_blocks(20, 5);
  SamplerOptions options = blocks_options(starts, 4, 4);
  const auto sequence = epoch_sequence(100, options, 0);
  auto sorted = sequence;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, iota(100));
  EXPECT_EQ(sequence, epoch_sequence(100, options, 0));
  EXPECT_NE(sequence, epoch_sequence(100, options, 1));
  std::set<std::uint32_t> all_blocks;
  for (std::size_t w = 0; w < 5; ++w) {
    // Each window of 20 positions holds exactly 4 whole blocks, and is not in storage order.
    std::set<std::uint32_t> blocks;
    for (std::size_t k = 20 * w; k < 20 * (w + 1); ++k) blocks.insert(sequence[k] / 5);
    EXPECT_EQ(blocks.size(), 4u) << "window " << w;
    all_blocks.insert(blocks.begin(), blocks.end());
    EXPECT_FALSE(std::is_sorted(sequence.begin() + static_cast<std::ptrdiff_t>(20 * w),
                                sequence.begin() + static_cast<std::ptrdiff_t>(20 * (w + 1))));
  }
  EXPECT_EQ(all_blocks.size(), 20u);
  // The blocks' order is shuffled too: the first window is not blocks 0-3.
  std::set<std::uint32_t> first_window;
  for (std::size_t k = 0; k < 20; ++k) first_window.insert(sequence[k] / 5);
  EXPECT_NE(first_window, (std::set<std::uint32_t>{0, 1, 2, 3}));
  // Ranks deal their world size's sequence round-robin.
  options.world_size = 3;
  options.rank = 1;
  const auto dealt = epoch_sequence(100, options, 0);
  const auto mine = epoch_order(100, options, 0);
  ASSERT_EQ(mine.size(), 34u);
  for (std::size_t k = 0; k < 33; ++k) EXPECT_EQ(mine[k], dealt[3 * k + 1]);
}

TEST(Sampler, BlocksAreDealtToTheRanksWhichReadTheirOwn) {
  // 1000 samples in 100 blocks of 10 on 4 ranks, windows of 5 blocks each: every rank reads its
  // 25 blocks, mixes 5 of them per window, and only the samples that even out the ranks'
  // lengths (none here: equal blocks) come from other ranks' blocks.
  const std::vector<std::uint32_t> starts = even_blocks(100, 10);
  SamplerOptions options = blocks_options(starts, 5, 3);
  options.world_size = 4;
  std::multiset<std::uint32_t> all;
  std::set<std::uint32_t> blocks_read[4];
  for (int rank = 0; rank < 4; ++rank) {
    options.rank = rank;
    const auto mine = epoch_order(1000, options, 2);
    ASSERT_EQ(mine.size(), 250u);
    all.insert(mine.begin(), mine.end());
    for (const std::uint32_t i : mine) blocks_read[rank].insert(i / 10);
    EXPECT_EQ(blocks_read[rank].size(), 25u) << "rank " << rank;
    // Its first batch of 16 mixes the blocks of its first window.
    std::set<std::uint32_t> first_batch;
    for (std::size_t k = 0; k < 16; ++k) first_batch.insert(mine[k] / 10);
    EXPECT_GE(first_batch.size(), 4u);
  }
  EXPECT_EQ(std::set<std::uint32_t>(all.begin(), all.end()).size(), 1000u);
  EXPECT_EQ(all.size(), 1000u);

  // Blocks of unequal sizes: the ranks still get equal shares of every sample once, and each
  // reads few blocks beyond its own third.
  std::vector<std::uint32_t> uneven;
  for (std::uint32_t at = 0; at < 1000; at += 5 + (at / 7) % 11) uneven.push_back(at);
  options.block_starts = uneven;
  all.clear();
  for (const bool pad : {true, false}) {
    options.pad_shards = pad;
    all.clear();
    for (int rank = 0; rank < 3; ++rank) {
      options.world_size = 3;
      options.rank = rank;
      const auto mine = epoch_order(1000, options, 0);
      EXPECT_EQ(mine.size(), pad ? 334u : 333u);
      all.insert(mine.begin(), mine.end());
      std::set<std::size_t> touched;
      for (const std::uint32_t i : mine) {
        touched.insert(static_cast<std::size_t>(std::upper_bound(uneven.begin(), uneven.end(), i) -
                                                uneven.begin() - 1));
      }
      // Its third of the blocks, and at most the last two windows of each other rank, whose
      // tails even out the lengths; far from every block, as dealing samples would read.
      EXPECT_LE(touched.size(), uneven.size() / 3 + 1 + 2 * 2 * 5) << "rank " << rank;
    }
    EXPECT_EQ(std::set<std::uint32_t>(all.begin(), all.end()).size(), pad ? 1000u : 999u);
  }
}

TEST(Sampler, TheFirstWindowGoesPartByPartAndIsReadInParts) {
  // 100 samples in 20 blocks of 5; windows of 4 blocks. The first window's blocks are cut into
  // kFirstWindowParts parts of consecutive samples, and its positions hold part 0 of each of its
  // blocks, then part 1, ...: its first batches need only the first part of each block.
  static_assert(kFirstWindowParts == 3);
  const std::vector<std::uint32_t> starts = even_blocks(20, 5);
  SamplerOptions options = blocks_options(starts, 4, 11);
  for (const std::uint64_t epoch : {0u, 1u}) {
    const auto sequence = epoch_sequence(100, options, epoch);
    std::set<std::uint32_t> window;
    for (std::size_t k = 0; k < 20; ++k) window.insert(sequence[k] / 5);
    ASSERT_EQ(window.size(), 4u);
    // Parts of 5 samples: [0, 1), [1, 3), [3, 5) within each block.
    const auto part_of = [](std::uint32_t i) { return i % 5 < 1 ? 0 : i % 5 < 3 ? 1 : 2; };
    const std::size_t part_end[] = {4, 12, 20};  // positions: 4 x 1, then 4 x 2, then 4 x 2
    for (std::size_t k = 0; k < 20; ++k) {
      const int expected = k < part_end[0] ? 0 : k < part_end[1] ? 1 : 2;
      EXPECT_EQ(part_of(sequence[k]), expected) << "position " << k << ", epoch " << epoch;
    }
    std::vector<std::uint32_t> units;
    for (std::uint32_t b = 0; b < 20; ++b) {
      units.push_back(5 * b);
      if (window.count(b) != 0) {
        units.push_back(5 * b + 1);
        units.push_back(5 * b + 3);
      }
    }
    EXPECT_EQ(epoch_read_units(100, options, epoch), units);
  }
  // A block of fewer samples than parts gives no empty unit.
  const std::vector<std::uint32_t> two = {0, 2};
  options.block_starts = two;
  options.window_blocks = 2;
  EXPECT_EQ(epoch_read_units(4, options, 0), (std::vector<std::uint32_t>{0, 1, 2, 3}));
}

TEST(Sampler, BatchCount) {
  EXPECT_EQ(batch_count(50, 8, false), 7u);
  EXPECT_EQ(batch_count(50, 8, true), 6u);
  EXPECT_EQ(batch_count(48, 8, true), 6u);
  EXPECT_EQ(batch_count(3, 8, true), 0u);
}

}  // namespace
}  // namespace feedrate
