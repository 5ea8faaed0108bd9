// `feedrate tune --shuffle-windows MB,...`: the trade-off of shuffle=blocks' window, measured.
// For each window, a fresh Loader reads epoch 0 whole (the order's quality is an epoch's) with
// the given options and shuffle=blocks; each point records images/s, peak RSS, reads and the
// shuffle quality of the delivered order (loader/diagnosis/shuffle_quality.h: distinct labels per
// batch against a full shuffle's, and Spearman's rank correlation with storage order). Rendered as
// a text table, JSON and an SVG (images/s and label mix against the window, bench/tune/svg_plot.h).
// Thread-safety: runs on the caller's thread, one point at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/tune/tune_measure.h"
#include "feedrate/options.h"

namespace feedrate::bench {

struct WindowPoint {
  EpochRun run;  // its costs carry the setting it ran with, the window among it
  std::size_t window_mb() const { return run.costs.setting.shuffle_window_mb; }
};

// Called after each point.
using WindowProgress = std::function<void(const WindowPoint&)>;

// `base` with shuffle=blocks and each of `windows_mb` in turn, in the order given. Throws
// feedrate::Error for bad options or a bad dataset, std::invalid_argument for an empty list or
// a window of 0.
std::vector<WindowPoint> sweep_windows(const LoaderOptions& base,
                                       const std::vector<std::size_t>& windows_mb,
                                       const WindowProgress& progress = {});

// A sweep, for its renderings.
struct WindowSweep {
  std::string dataset;
  std::vector<WindowPoint> points;
  double seconds() const;  // the epochs' time, summed
  // The setting the points share (all but the window): the first point's; the default one for
  // a sweep of no points.
  const CostSetting& setting() const;
};

std::string window_text(const WindowSweep& sweep);  // a header line and a table
nlohmann::json window_json(const WindowSweep& sweep);
std::string window_svg(const WindowSweep& sweep);

}  // namespace feedrate::bench
