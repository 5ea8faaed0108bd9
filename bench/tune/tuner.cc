#include "bench/tune/tuner.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

namespace feedrate::bench {
namespace {

// The measured points and their costs, each setting measured at most once.
class Tuner {
 public:
  Tuner(const TuneBounds& bounds, const MeasureSetting& measure)
      : bounds_(bounds), measure_(measure), margin_mb_(kMemoryMargin * bounds.memory_limit_mb) {}

  // Measures `setting` unless its projected peak RSS passes the margin; a measured peak past
  // it marks the point refused too.
  CurvePoint measure(const TuneSetting& setting, double projected_mb) {
    CurvePoint point;
    point.workers = setting.workers;
    if (projected_mb > margin_mb_) {
      point.refused = true;
      point.reason = past_the_limit("projected", projected_mb);
      return point;
    }
    const PointFigures figures = measure_(setting);
    point.images_per_s = figures.costs.images_per_s;
    point.peak_rss_mb = figures.costs.peak_rss_mb;
    point.seconds = figures.seconds;
    point.bottleneck = figures.bottleneck;
    if (figures.costs.peak_rss_mb > margin_mb_) {
      point.refused = true;
      point.reason = past_the_limit("measured", figures.costs.peak_rss_mb);
    }
    costs_[key(setting)] = figures.costs;
    return point;
  }

  // Peak RSS projected for `workers` from the points measured so far: the nearest measured
  // count below, plus the slope between the two highest measured counts below (never negative).
  static double project_workers(const std::vector<CurvePoint>& measured, int workers) {
    std::vector<const CurvePoint*> below;
    for (const CurvePoint& p : measured) {
      if (p.workers < workers && p.peak_rss_mb > 0) below.push_back(&p);
    }
    if (below.empty()) return 0;
    std::sort(below.begin(), below.end(),
              [](const CurvePoint* a, const CurvePoint* b) { return a->workers < b->workers; });
    const CurvePoint& top = *below.back();
    double slope = 0;
    if (below.size() >= 2) {
      const CurvePoint& next = *below[below.size() - 2];
      slope = std::max(0.0, (top.peak_rss_mb - next.peak_rss_mb) / (top.workers - next.workers));
    }
    return top.peak_rss_mb + slope * (workers - top.workers);
  }

  const RunCosts& costs(const TuneSetting& s) const { return costs_.at(key(s)); }

 private:
  static std::tuple<int, std::size_t, unsigned> key(const TuneSetting& s) {
    return {s.workers, s.prefetch_batches, s.queue_depth};
  }
  std::string past_the_limit(const char* how, double peak_mb) const {
    return fmt::format("{} peak RSS {:.0f} MB passes {:.0f}% of the {:.0f} MB limit", how, peak_mb,
                       100 * kMemoryMargin, bounds_.memory_limit_mb);
  }

  const TuneBounds& bounds_;
  const MeasureSetting& measure_;
  const double margin_mb_;
  std::map<std::tuple<int, std::size_t, unsigned>, RunCosts> costs_;
};

void recommend(TuneResult& result, const TuneSetting& setting, const CurvePoint& point) {
  result.recommended = setting;
  result.recommended_images_per_s = point.images_per_s;
  result.recommended_bottleneck = point.bottleneck;
}

// Deeper prefetch hides uneven decode times; the queue depth suits the disk's parallelism.
void adjust(Tuner& tuner, const ToldOfPoint& told, TuneResult& result) {
  const TuneSetting knee = result.recommended;
  const RunCosts& knee_costs = tuner.costs(knee);
  const double slot_mb = static_cast<double>(knee_costs.setting.batch_size) *
                         (knee_costs.h2d_bytes_per_image + knee_costs.image.bytes_per_image) / 1e6;
  const std::vector<TuneSetting> candidates = {
      {knee.workers, knee.prefetch_batches * 2, knee.queue_depth},
      {knee.workers, knee.prefetch_batches, std::max(1u, knee.queue_depth / 4)},
      {knee.workers, knee.prefetch_batches, std::min(kMostQueueDepth, knee.queue_depth * 4)}};
  for (const TuneSetting& s : candidates) {
    const double projected =
        knee_costs.peak_rss_mb + slot_mb * (static_cast<double>(s.prefetch_batches) -
                                            static_cast<double>(knee.prefetch_batches));
    const AdjustPoint adjusted{s, tuner.measure(s, projected)};
    result.seconds += adjusted.point.seconds;
    if (told) told(s, adjusted.point, true);
    if (!adjusted.point.refused &&
        adjusted.point.images_per_s >= result.recommended_images_per_s * (1 + kClimbGain)) {
      recommend(result, s, adjusted.point);
    }
    result.adjust.push_back(adjusted);
  }
}

}  // namespace

TuneResult tune(const TuneBounds& bounds, const MeasureSetting& measure, const ToldOfPoint& told) {
  Tuner tuner(bounds, measure);
  TuneResult result;
  std::vector<CurvePoint> measured;
  const MeasureWorkers measure_workers = [&](int workers) {
    const TuneSetting setting{workers, bounds.prefetch_batches, bounds.queue_depth};
    CurvePoint point = tuner.measure(setting, Tuner::project_workers(measured, workers));
    measured.push_back(point);
    if (told) told(setting, point, false);
    return point;
  };
  result.search = bounds.exhaustive
                      ? exhaustive_search(bounds.min_workers, bounds.max_workers, measure_workers)
                      : smart_search(bounds.min_workers, bounds.max_workers, measure_workers);
  result.seconds = result.search.seconds;
  if (result.search.knee < 0) {
    throw std::runtime_error(fmt::format(
        "every setting tried would pass the memory limit ({:.0f} MB): {}", bounds.memory_limit_mb,
        result.search.points.empty() ? "" : result.search.points.front().reason));
  }
  for (const CurvePoint& p : result.search.points) {
    if (p.workers == result.search.knee) {
      recommend(result, {p.workers, bounds.prefetch_batches, bounds.queue_depth}, p);
    }
  }
  if (bounds.adjust) adjust(tuner, told, result);
  result.recommended_costs = tuner.costs(result.recommended);
  return result;
}

}  // namespace feedrate::bench
