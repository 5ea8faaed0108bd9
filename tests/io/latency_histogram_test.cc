// Tests for io::LatencyHistogram: percentiles of known distributions within the buckets'
// resolution, ordering of p50 and p99, and the edges (nothing recorded, zero, huge values).

#include "io/latency_histogram.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

namespace feedrate::io {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

// Within the half-width of a bucket (1/16 of the value) plus rounding.
void expect_near_relative(nanoseconds actual, double expected_ns) {
  EXPECT_NEAR(static_cast<double>(actual.count()), expected_ns, expected_ns * 0.07 + 1);
}

TEST(LatencyHistogramTest, EmptyHistogramReportsZero) {
  const LatencyHistogram histogram;
  EXPECT_EQ(histogram.count(), 0u);
  EXPECT_EQ(histogram.percentile(0.5), nanoseconds::zero());
  EXPECT_EQ(histogram.percentile(0.99), nanoseconds::zero());
}

TEST(LatencyHistogramTest, UniformDistribution) {
  LatencyHistogram histogram;
  // 1 to 10000 us.
  for (int us = 1; us <= 10'000; ++us) histogram.record(microseconds(us));
  EXPECT_EQ(histogram.count(), 10'000u);
  expect_near_relative(histogram.percentile(0.5), 5000e3);
  expect_near_relative(histogram.percentile(0.99), 9900e3);
  expect_near_relative(histogram.percentile(1.0), 10'000e3);
  EXPECT_LE(histogram.percentile(0.5), histogram.percentile(0.99));
}

TEST(LatencyHistogramTest, TailIsSeparatedFromTheMedian) {
  LatencyHistogram histogram;
  for (int i = 0; i < 980; ++i) histogram.record(microseconds(100));
  for (int i = 0; i < 20; ++i) histogram.record(microseconds(40'000));
  expect_near_relative(histogram.percentile(0.5), 100e3);
  expect_near_relative(histogram.percentile(0.99), 40'000e3);
}

TEST(LatencyHistogramTest, SmallZeroNegativeAndHugeValues) {
  LatencyHistogram histogram;
  histogram.record(nanoseconds(0));
  histogram.record(nanoseconds(-5));  // a clock oddity counts as zero
  histogram.record(nanoseconds(3));
  histogram.record(std::chrono::hours(100'000));  // beyond the last bucket: kept in it
  EXPECT_EQ(histogram.count(), 4u);
  EXPECT_EQ(histogram.percentile(0.5), nanoseconds(0));
  EXPECT_EQ(histogram.percentile(0.75), nanoseconds(3));
  EXPECT_GE(histogram.percentile(1.0), std::chrono::minutes(10));
}

TEST(LatencyHistogramTest, EveryValueLandsInABucketNearIt) {
  for (std::uint64_t ns = 1; ns < (std::uint64_t{1} << 40); ns = ns * 3 + 1) {
    LatencyHistogram histogram;
    histogram.record(nanoseconds(ns));
    SCOPED_TRACE(ns);
    expect_near_relative(histogram.percentile(0.5), static_cast<double>(ns));
  }
}

}  // namespace
}  // namespace feedrate::io
