// One point of `feedrate tune`: a Loader with the given options, run to a steady state and
// timed over a window. Thread-safety: runs on the caller's thread; one point at a time (the
// process's peak RSS is reset for each).
#pragma once

#include <cstddef>

#include "bench/report_output.h"
#include "loader/options.h"

namespace feedrate::bench {

struct PointFigures {
  double images_per_s = 0;  // over the window, from the first delivery after warm-up
  double peak_rss_mb = 0;   // of the process while the point ran
  double seconds = 0;       // the whole point: indexing, warm-up and window
  RunCosts costs;           // per-image costs of this point
};

// Builds a Loader from `options`, delivers `warmup_batches` batches, then counts images
// delivered until `window_s` has passed (epochs restart as needed). Throws feedrate::Error for
// bad options or a bad dataset.
PointFigures measure_point(const LoaderOptions& options, double window_s,
                           std::size_t warmup_batches = 2);

}  // namespace feedrate::bench
