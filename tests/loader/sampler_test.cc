// Sampler: permutations, determinism and torch DistributedSampler sharding semantics.
#include "loader/sampler.h"

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

TEST(Sampler, SequentialOrderWithoutShuffle) {
  SamplerOptions options;
  options.shuffle = false;
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
  options.shuffle = false;
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
  options.shuffle = false;
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

TEST(Sampler, BatchCount) {
  EXPECT_EQ(batch_count(50, 8, false), 7u);
  EXPECT_EQ(batch_count(50, 8, true), 6u);
  EXPECT_EQ(batch_count(48, 8, true), 6u);
  EXPECT_EQ(batch_count(3, 8, true), 0u);
}

}  // namespace
}  // namespace feedrate
