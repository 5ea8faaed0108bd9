// The num_workers search of `feedrate tune`, apart from how a point is measured (so that it can
// be tested on synthetic curves).
//
// Smart search: climb from min_workers (1, 2, 4, ... doubling, capped at max_workers) and stop
// once a step adds under kClimbGain (3%) — for a step of one worker, "another worker adds under
// 3%" (a refused setting, one past the memory limit, caps the climb below it, so the counts in
// between are tried); then bisect between the largest measured count below
// kKneeShare (95%) of the best and the smallest at or above it, until they are adjacent. The
// knee is the smallest measured count reaching 95% of the best. Exhaustive search measures
// every count from min_workers to max_workers (stopping at the first refused one).
//
// Thread-safety: reentrant; `measure` is called on the caller's thread, once per count.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "feedrate/resource.h"

namespace feedrate::bench {

inline constexpr double kClimbGain = 0.03;
inline constexpr double kKneeShare = 0.95;

struct CurvePoint {
  int workers = 0;
  double images_per_s = 0;
  double peak_rss_mb = 0;
  double seconds = 0;    // spent measuring it (set-up included)
  bool refused = false;  // not run, or not to be used: it would pass the memory limit
  std::string reason;
  std::optional<Resource> bottleneck;  // the verdict's at this point; absent when not run
};

using MeasureWorkers = std::function<CurvePoint(int workers)>;

struct SearchResult {
  std::vector<CurvePoint> points;  // in the order measured
  int best = -1;                   // num_workers with the highest images/s; -1: none usable
  int knee = -1;                   // the smallest with >= kKneeShare of the best
  double seconds = 0;              // spent measuring, all points together
};

SearchResult smart_search(int min_workers, int max_workers, const MeasureWorkers& measure);
SearchResult exhaustive_search(int min_workers, int max_workers, const MeasureWorkers& measure);

// The measured points sorted by num_workers (refused ones included).
std::vector<CurvePoint> by_workers(const SearchResult& result);

}  // namespace feedrate::bench
