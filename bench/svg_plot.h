// A self-contained SVG picture of a tuning curve: images/s (solid, left axis) and peak RSS
// (dashed, right axis) against num_workers, the knee marked. No scripts, fonts or external
// references. Thread-safety: reentrant.
#pragma once

#include <string>
#include <vector>

#include "bench/tune_search.h"

namespace feedrate::bench {

// `points` sorted by num_workers; refused points without figures are left out.
std::string curve_svg(const std::vector<CurvePoint>& points, int knee, const std::string& title);

}  // namespace feedrate::bench
