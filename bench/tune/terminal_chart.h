// A text chart of a tuning curve for the terminal: one row per num_workers with a bar of
// images/s and a bar of peak RSS, the knee and refused settings marked. Thread-safety: reentrant.
#pragma once

#include <string>
#include <vector>

#include "bench/tune/tune_search.h"

namespace feedrate::bench {

// `points` sorted by num_workers; `knee` is marked (-1: none). Bars are at most `width` cells.
std::string terminal_chart(const std::vector<CurvePoint>& points, int knee, int width = 40);

}  // namespace feedrate::bench
