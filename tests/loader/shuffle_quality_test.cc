// Shuffle quality figures: the exact expectation of distinct labels against hand-computed cases
// and a simulation, label mix and Spearman correlation at their known extremes.
#include "loader/diagnosis/shuffle_quality.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "loader/pipeline/sampler.h"

namespace feedrate {
namespace {

TEST(ShuffleQuality, ExpectedDistinctLabelsByHand) {
  // Two labels of 2 samples each, 2 draws: both labels unless the pair is one label's
  // (2 of the 6 pairs): 2 - 2/6.
  const std::vector<std::size_t> two_by_two{2, 2};
  EXPECT_NEAR(expected_distinct_labels(two_by_two, 2), 2 - 2.0 / 6, 1e-12);
  EXPECT_NEAR(expected_distinct_labels(two_by_two, 1), 1, 1e-12);
  EXPECT_NEAR(expected_distinct_labels(two_by_two, 3), 2, 1e-12);  // 3 draws hold both
  EXPECT_NEAR(expected_distinct_labels(std::vector<std::size_t>{5}, 4), 1, 1e-12);
}

TEST(ShuffleQuality, ExpectationMatchesSimulatedFullShuffles) {
  std::vector<std::int32_t> labels(1000);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>(i / 100);
  SamplerOptions options;
  double mix = 0;
  for (std::uint64_t epoch = 0; epoch < 20; ++epoch) {
    const auto order = epoch_sequence(labels.size(), options, epoch);
    mix += shuffle_quality(order, labels, 16).label_mix / 20;
  }
  EXPECT_NEAR(mix, 1.0, 0.01);
}

TEST(ShuffleQuality, StorageOrderOfSortedClassesIsTheWorstCase) {
  std::vector<std::int32_t> labels(640);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>(i / 64);
  std::vector<std::uint32_t> order(labels.size());
  std::iota(order.begin(), order.end(), 0u);
  const ShuffleQuality sorted = shuffle_quality(order, labels, 64);
  EXPECT_DOUBLE_EQ(sorted.labels_per_batch, 1.0);  // each batch is one class
  EXPECT_GT(sorted.full_labels_per_batch, 9.9);
  EXPECT_NEAR(sorted.spearman, 1.0, 1e-12);
  std::reverse(order.begin(), order.end());
  EXPECT_NEAR(shuffle_quality(order, labels, 64).spearman, -1.0, 1e-12);
}

TEST(ShuffleQuality, SpearmanOfAFullShuffleIsNearZero) {
  SamplerOptions options;
  const auto full = epoch_sequence(10000, options, 0);
  EXPECT_LT(std::abs(spearman_of_order(full)), 0.05);
  EXPECT_EQ(spearman_of_order(std::vector<std::uint32_t>{7}), 0.0);
  // Padding repeats share their mean rank: ranks 0, 1.5, 1.5, 3 against positions 0..3 give
  // covariance 4.5 and variances 5 and 4.5.
  EXPECT_NEAR(spearman_of_order(std::vector<std::uint32_t>{0, 1, 1, 2}), 4.5 / std::sqrt(22.5),
              1e-12);
}

}  // namespace
}  // namespace feedrate
