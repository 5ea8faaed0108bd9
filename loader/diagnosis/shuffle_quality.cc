#include "loader/diagnosis/shuffle_quality.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace feedrate {

double expected_distinct_labels(std::span<const std::size_t> counts, std::size_t draws) {
  const std::size_t n = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  draws = std::min(draws, n);
  double expected = 0;
  for (const std::size_t count : counts) {
    if (count == 0) continue;
    // P(no sample of this label) = prod_{j < draws} (n - count - j) / (n - j), in logs.
    double log_none = 0;
    bool impossible = false;
    for (std::size_t j = 0; j < draws; ++j) {
      if (n - j <= count) {
        impossible = true;  // fewer other samples than draws: the label is always drawn
        break;
      }
      log_none +=
          std::log(static_cast<double>(n - count - j)) - std::log(static_cast<double>(n - j));
    }
    expected += impossible ? 1.0 : 1.0 - std::exp(log_none);
  }
  return expected;
}

double spearman_of_order(std::span<const std::uint32_t> order) {
  const std::size_t n = order.size();
  if (n < 2) return 0;
  // Ranks of the storage positions (ties, from padding repeats, take their mean rank).
  std::vector<std::size_t> by_value(n);
  std::iota(by_value.begin(), by_value.end(), std::size_t{0});
  std::stable_sort(by_value.begin(), by_value.end(),
                   [&](std::size_t a, std::size_t b) { return order[a] < order[b]; });
  std::vector<double> rank(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && order[by_value[j]] == order[by_value[i]]) ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j - 1)) / 2;
    for (std::size_t k = i; k < j; ++k) rank[by_value[k]] = mean_rank;
    i = j;
  }
  // Pearson correlation of the ranks with positions 0..n-1.
  const double mean = (static_cast<double>(n) - 1) / 2;
  double covariance = 0, var_position = 0, var_rank = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double p = static_cast<double>(k) - mean;
    const double r = rank[k] - mean;
    covariance += p * r;
    var_position += p * p;
    var_rank += r * r;
  }
  if (var_rank == 0) return 0;
  return covariance / std::sqrt(var_position * var_rank);
}

ShuffleQuality shuffle_quality(std::span<const std::uint32_t> order,
                               std::span<const std::int32_t> labels, std::size_t batch_size) {
  ShuffleQuality quality;
  if (order.empty() || batch_size == 0) return quality;
  std::vector<std::size_t> counts;
  for (const std::int32_t label_value : labels) {
    const auto label = static_cast<std::size_t>(label_value);
    if (label >= counts.size()) counts.resize(label + 1, 0);
    ++counts[label];
  }
  std::vector<char> seen(counts.size());
  const double expected_full = expected_distinct_labels(counts, batch_size);
  double distinct_sum = 0, expected_sum = 0;
  std::size_t batches = 0;
  for (std::size_t first = 0; first < order.size(); first += batch_size) {
    const std::size_t size = std::min(batch_size, order.size() - first);
    std::fill(seen.begin(), seen.end(), 0);
    std::size_t distinct = 0;
    for (std::size_t k = first; k < first + size; ++k) {
      char& mark = seen[static_cast<std::size_t>(labels[order[k]])];
      distinct += mark == 0 ? 1 : 0;
      mark = 1;
    }
    distinct_sum += static_cast<double>(distinct);
    expected_sum += size == batch_size ? expected_full : expected_distinct_labels(counts, size);
    ++batches;
  }
  quality.labels_per_batch = distinct_sum / static_cast<double>(batches);
  quality.full_labels_per_batch = expected_sum / static_cast<double>(batches);
  quality.label_mix = quality.labels_per_batch / quality.full_labels_per_batch;
  quality.spearman = spearman_of_order(order);
  return quality;
}

}  // namespace feedrate
