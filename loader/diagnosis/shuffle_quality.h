// How well an epoch's order is shuffled, as two figures the bench reports (pure functions;
// thread-safety: reentrant):
//   - label mix: the mean number of distinct labels per batch, and that mean relative to what a
//     uniform shuffle of the same labels gives (its exact expectation, by hypergeometric
//     sampling without replacement); 1.0 is as mixed as a full shuffle.
//   - Spearman's rank correlation between storage position and delivery position: 1 in storage
//     order, about 0 for a full shuffle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace feedrate {

struct ShuffleQuality {
  double labels_per_batch = 0;       // mean distinct labels per batch of the order
  double full_labels_per_batch = 0;  // the expectation under a uniform shuffle
  double label_mix = 0;              // labels_per_batch / full_labels_per_batch
  double spearman = 0;               // storage position vs delivery position
};

// `order` holds dataset indices (storage positions) in delivery order; labels[i] is the label
// of dataset index i (non-negative). Batches are consecutive runs of batch_size, the last one
// possibly shorter. The expectation draws from the whole dataset's labels, as a full shuffle
// does (also when `order` is a part of an epoch, or one rank's share).
ShuffleQuality shuffle_quality(std::span<const std::uint32_t> order,
                               std::span<const std::int32_t> labels, std::size_t batch_size);

// Expected distinct labels in `draws` samples drawn without replacement from a population of
// `counts[c]` samples of each label c: sum over c of 1 - C(n - counts[c], draws) / C(n, draws).
double expected_distinct_labels(std::span<const std::size_t> counts, std::size_t draws);

// Spearman's rank correlation of delivery position k with order[k]; 0 for fewer than 2.
double spearman_of_order(std::span<const std::uint32_t> order);

}  // namespace feedrate
