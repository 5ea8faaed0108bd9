// The read-ahead's sample buffers: reused when they fit, not when they are far too large, and
// the buffers kept never pass the bound when a new one is made.
#include "loader/pipeline/sample_buffers.h"

#include <gtest/gtest.h>

#include <utility>

namespace feedrate {
namespace {

TEST(SampleBuffers, AReleasedBufferServesTheNextSampleItFits) {
  SampleBuffers buffers(1 << 20);
  SampleBuffers::Buffer first = buffers.acquire(3'000);
  EXPECT_GE(first.capacity(), 3'000u);
  const std::byte* memory = first.first(1).data();
  buffers.release(std::move(first));
  SampleBuffers::Buffer second = buffers.acquire(2'500);
  EXPECT_EQ(second.first(1).data(), memory);
  EXPECT_EQ(buffers.made(), 1u);
  buffers.release(std::move(second));
  // Too large for a sample of a few bytes: its memory would go uncounted.
  SampleBuffers::Buffer small = buffers.acquire(10);
  EXPECT_NE(small.first(1).data(), memory);
  EXPECT_EQ(buffers.made(), 2u);
}

TEST(SampleBuffers, FreeBuffersTooSmallGoBeforeOnePassingTheBoundIsMade) {
  SampleBuffers buffers(8 * SampleBuffers::kGrain);
  SampleBuffers::Buffer a = buffers.acquire(2 * SampleBuffers::kGrain);
  SampleBuffers::Buffer b = buffers.acquire(2 * SampleBuffers::kGrain);
  buffers.release(std::move(a));
  buffers.release(std::move(b));
  EXPECT_EQ(buffers.made_bytes(), 4 * SampleBuffers::kGrain);
  SampleBuffers::Buffer large = buffers.acquire(6 * SampleBuffers::kGrain);
  EXPECT_EQ(large.capacity(), 6 * SampleBuffers::kGrain);
  EXPECT_EQ(buffers.made_bytes(), 8 * SampleBuffers::kGrain) << "one free buffer let go";
  EXPECT_EQ(buffers.free_bytes(), 2 * SampleBuffers::kGrain);
}

}  // namespace
}  // namespace feedrate
