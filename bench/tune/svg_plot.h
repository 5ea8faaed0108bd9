// Self-contained SVG line charts (no scripts, fonts or external references): a chart of one or
// more series against x with two value axes (left solid, right dashed), one point optionally
// marked; and on it the tuning curve of `feedrate tune` (images/s and peak RSS against
// num_workers, the knee marked) and the shuffle-window sweep (bench/tune/window_sweep.h).
// Thread-safety: reentrant.
#pragma once

#include <string>
#include <vector>

#include "bench/tune/tune_search.h"

namespace feedrate::bench {

struct PlotSeries {
  std::string name;            // for the hover text
  std::vector<double> values;  // one per x
  bool right_axis = false;     // else the left axis
};

struct LinePlot {
  std::string title, x_label, left_label, right_label;
  std::vector<double> x;  // increasing
  std::vector<PlotSeries> series;
  double right_top = 0;  // the right axis's top when no value passes it (0: from the data)
  int marked = -1;       // the index into x circled on the first left-axis series; -1: none
  std::string mark_label;
};

// Axes from 0 to a round number above the largest value of their series; x ticks at every x.
std::string line_plot_svg(const LinePlot& plot);

// `points` sorted by num_workers; refused points without figures are left out.
std::string curve_svg(const std::vector<CurvePoint>& points, int knee, const std::string& title);

}  // namespace feedrate::bench
