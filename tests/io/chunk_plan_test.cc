// Tests for io::ChunkPlanner: which ranges share a chunk (adjacent, small gaps, within the
// chunk size, in read order), where each range lies in its chunk, and a tar-like shard.

#include "io/chunk_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace feedrate::io {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;

// Every range lies inside its chunk at its slice's offset, and chunks are only as long as
// their ranges make them.
void expect_consistent(const std::vector<ByteRange>& ranges, const ChunkPlan& plan) {
  ASSERT_EQ(plan.slices.size(), ranges.size());
  std::vector<std::uint64_t> covered_end(plan.chunks.size(), 0);
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    SCOPED_TRACE("range " + std::to_string(i));
    const ChunkSlice& slice = plan.slices[i];
    ASSERT_LT(slice.chunk, plan.chunks.size());
    const ByteRange& chunk = plan.chunks[slice.chunk];
    EXPECT_EQ(chunk.offset + slice.offset, ranges[i].offset);
    EXPECT_LE(slice.offset + ranges[i].size, chunk.size);
    covered_end[slice.chunk] = std::max(covered_end[slice.chunk], slice.offset + ranges[i].size);
  }
  for (std::size_t c = 0; c < plan.chunks.size(); ++c) {
    EXPECT_EQ(covered_end[c], plan.chunks[c].size) << "chunk " << c;
  }
}

TEST(ChunkPlannerTest, NoRanges) {
  const ChunkPlan plan = ChunkPlanner{}.plan({});
  EXPECT_TRUE(plan.chunks.empty());
  EXPECT_TRUE(plan.slices.empty());
}

TEST(ChunkPlannerTest, DefaultsAreFourMebibytesAndSixtyFourKibibytes) {
  EXPECT_EQ(ChunkPlanner{}.chunk_bytes, 4 * kMiB);
  EXPECT_EQ(ChunkPlanner{}.max_gap, 64 * kKiB);
}

TEST(ChunkPlannerTest, AdjacentAndNearbyRangesShareAChunk) {
  const std::vector<ByteRange> ranges = {
      {1000, 500}, {1500, 200}, {1700 + 4096, 100}, {1700 + 4096 + 100 + 64 * kKiB - 1, 10}};
  const ChunkPlan plan = ChunkPlanner{}.plan(ranges);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.chunks[0], (ByteRange{1000, 1700 + 4096 + 100 + 64 * kKiB - 1 + 10 - 1000}));
  EXPECT_EQ(plan.slices[0], (ChunkSlice{0, 0}));
  EXPECT_EQ(plan.slices[1], (ChunkSlice{0, 500}));
  EXPECT_EQ(plan.slices[2], (ChunkSlice{0, 700 + 4096}));
  expect_consistent(ranges, plan);
}

TEST(ChunkPlannerTest, GapOfSixtyFourKibibytesStartsANewChunk) {
  const std::vector<ByteRange> ranges = {{0, 100}, {100 + 64 * kKiB, 100}};
  const ChunkPlan plan = ChunkPlanner{}.plan(ranges);
  ASSERT_EQ(plan.chunks.size(), 2u);
  EXPECT_EQ(plan.chunks[1], (ByteRange{100 + 64 * kKiB, 100}));
  EXPECT_EQ(plan.slices[1], (ChunkSlice{1, 0}));
  expect_consistent(ranges, plan);
}

TEST(ChunkPlannerTest, ChunkSpansAtMostTheChunkSize) {
  const ChunkPlanner planner{1000, 64 * kKiB};
  const std::vector<ByteRange> ranges = {{0, 400}, {400, 400}, {800, 200}, {1000, 1}};
  const ChunkPlan plan = planner.plan(ranges);
  ASSERT_EQ(plan.chunks.size(), 2u);
  EXPECT_EQ(plan.chunks[0], (ByteRange{0, 1000}));  // exactly the chunk size
  EXPECT_EQ(plan.chunks[1], (ByteRange{1000, 1}));
  expect_consistent(ranges, plan);
}

TEST(ChunkPlannerTest, RangeLongerThanAChunkIsAChunkOfItsOwn) {
  const std::vector<ByteRange> ranges = {{0, 10}, {10, 5 * kMiB}, {10 + 5 * kMiB, 10}};
  const ChunkPlan plan = ChunkPlanner{}.plan(ranges);
  ASSERT_EQ(plan.chunks.size(), 3u);
  EXPECT_EQ(plan.chunks[1], (ByteRange{10, 5 * kMiB}));
  expect_consistent(ranges, plan);
}

TEST(ChunkPlannerTest, BackwardRangeStartsANewChunk) {
  // Read order matters: a range before the current chunk's start is not merged into it.
  const std::vector<ByteRange> ranges = {{5000, 100}, {1000, 100}, {1100, 100}};
  const ChunkPlan plan = ChunkPlanner{}.plan(ranges);
  ASSERT_EQ(plan.chunks.size(), 2u);
  EXPECT_EQ(plan.chunks[0], (ByteRange{5000, 100}));
  EXPECT_EQ(plan.chunks[1], (ByteRange{1000, 200}));
  EXPECT_EQ(plan.slices[2], (ChunkSlice{1, 100}));
  expect_consistent(ranges, plan);
}

TEST(ChunkPlannerTest, OverlappingRepeatedAndEmptyRangesShareAChunk) {
  const std::vector<ByteRange> ranges = {{100, 300}, {100, 300}, {200, 50}, {400, 0}, {350, 100}};
  const ChunkPlan plan = ChunkPlanner{}.plan(ranges);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.chunks[0], (ByteRange{100, 350}));
  EXPECT_EQ(plan.slices[2], (ChunkSlice{0, 100}));
  EXPECT_EQ(plan.slices[3], (ChunkSlice{0, 300}));
  expect_consistent(ranges, plan);
}

TEST(ChunkPlannerTest, TarShardOfJpegs) {
  // 200 members of ~110 KB, each after a 512-byte header and padded to 512 bytes.
  std::vector<ByteRange> ranges;
  std::uint64_t at = 0;
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t size = 100'000 + static_cast<std::uint64_t>(i % 7) * 3000;
    at += 512;
    ranges.push_back({at, size});
    at += (size + 511) / 512 * 512;
  }
  const ChunkPlan plan = ChunkPlanner{}.plan(ranges);
  expect_consistent(ranges, plan);
  // ~22 MB of members: about six 4 MiB chunks, none longer than 4 MiB.
  EXPECT_GE(plan.chunks.size(), 5u);
  EXPECT_LE(plan.chunks.size(), 7u);
  for (const ByteRange& chunk : plan.chunks) EXPECT_LE(chunk.size, 4 * kMiB);
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    EXPECT_GE(plan.slices[i].chunk, plan.slices[i - 1].chunk) << "chunks follow read order";
  }
}

}  // namespace
}  // namespace feedrate::io
