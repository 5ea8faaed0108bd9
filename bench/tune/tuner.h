// The tuner of `feedrate tune` (bench/cli/tune_command.cc parses its options, runs it and
// prints what it found): the num_workers search (tune_search.h) over settings that a caller's
// function measures, each held to the memory limit, then the adjustment of prefetch_batches and
// the I/O queue depth at the knee. Apart from how a setting is measured, so that it is tested on
// synthetic figures.
//
// Memory: a setting may use at most kMemoryMargin of the memory limit (past the limit the process
// is killed, and the measured peak moves a little from run to run). A setting whose projected
// peak RSS passes that is refused, not run: for a count of workers, the peak of the nearest
// measured count below plus the slope between the two highest measured counts below (never
// negative); for an adjustment, the knee's peak plus a batch slot's bytes per extra batch in
// flight. A measured peak past it marks the point refused too: it is never recommended.
//
// Adjustment (unless turned off): at the knee, twice prefetch_batches, a quarter and four times
// the queue depth (at least 1, at most 4096), each kept only when it gains kClimbGain or more
// over the recommendation so far.
//
// Thread-safety: runs on the caller's thread; `measure` and `told` are called there.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "bench/tune/tune_measure.h"
#include "bench/tune/tune_search.h"
#include "feedrate/resource.h"
#include "feedrate/run_costs.h"

namespace feedrate::bench {

inline constexpr double kMemoryMargin = 0.9;
inline constexpr unsigned kMostQueueDepth = 4096;  // io_queue_depth's bound

// What the tuner varies; every other option stays as the user gave it.
struct TuneSetting {
  int workers = 1;
  std::size_t prefetch_batches = 3;
  unsigned queue_depth = 64;
};

// A point of the adjustment, at the knee's num_workers.
struct AdjustPoint {
  TuneSetting setting;
  CurvePoint point;
};

struct TuneBounds {
  int min_workers = 1;
  int max_workers = 1;
  bool exhaustive = false;  // measure every count instead of searching
  bool adjust = true;       // adjust prefetch_batches and the queue depth at the knee
  double memory_limit_mb = 0;
  // The search's setting besides num_workers, where the adjustment starts.
  std::size_t prefetch_batches = 3;
  unsigned queue_depth = 64;
};

struct TuneResult {
  SearchResult search;
  std::vector<AdjustPoint> adjust;  // in the order measured
  TuneSetting recommended;
  double recommended_images_per_s = 0;
  std::optional<Resource> recommended_bottleneck;
  RunCosts recommended_costs;  // as measured at the recommended setting
  double seconds = 0;          // spent measuring, the search and the adjustment together
};

// Runs a setting and returns its figures (tune_measure.h's measure_point in the command).
using MeasureSetting = std::function<PointFigures(const TuneSetting&)>;
// Told of each point once it is measured or refused; `adjusting`: a point of the adjustment.
using ToldOfPoint = std::function<void(const TuneSetting&, const CurvePoint&, bool adjusting)>;

// Throws std::runtime_error, naming the limit, when every setting tried would pass it.
TuneResult tune(const TuneBounds& bounds, const MeasureSetting& measure,
                const ToldOfPoint& told = {});

}  // namespace feedrate::bench
