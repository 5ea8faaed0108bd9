// One point of `feedrate tune`: a Loader with the given options, run to a steady state and
// timed over a window, or run for one whole epoch (the shuffle-window sweep, whose order matters
// over the epoch); and the shuffle quality of a delivered order, as bench reports it.
// Thread-safety: runs on the caller's thread; one point at a time (the process's peak RSS is
// reset for each).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "feedrate/resource.h"
#include "feedrate/run_costs.h"
#include "loader/diagnosis/shuffle_quality.h"

namespace feedrate::bench {

struct PointFigures {
  double seconds = 0;  // the whole point: indexing, warm-up and window
  // Per-image costs of this point: images_per_s over the window, from the first delivery after
  // warm-up; peak_rss_mb while it ran.
  RunCosts costs;
  std::optional<Resource> bottleneck;  // what the verdict says binds (over the warm-up too)
};

// Builds a Loader from `options`, delivers `warmup_batches` batches, then counts images
// delivered until `window_s` has passed (epochs restart as needed). Throws feedrate::Error for
// bad options or a bad dataset.
PointFigures measure_point(const LoaderOptions& options, double window_s,
                           std::size_t warmup_batches = 2);

struct EpochRun {
  double seconds = 0;
  std::uint64_t reads = 0;  // read operations
  ShuffleQuality quality;   // of the delivered order
  // images_per_s from start_epoch() to the last batch; peak_rss_mb while the epoch ran.
  RunCosts costs;
};

// Builds a Loader from `options` and delivers epoch 0 whole. Throws feedrate::Error for bad
// options or a bad dataset.
EpochRun measure_epoch(const LoaderOptions& options);

// The shuffle quality (loader/diagnosis/shuffle_quality.h) of `delivered`, dataset indices in
// delivery order, against the labels of `dataset`.
ShuffleQuality order_quality(const Dataset& dataset, const std::vector<std::uint32_t>& delivered,
                             std::size_t batch_size);

}  // namespace feedrate::bench
