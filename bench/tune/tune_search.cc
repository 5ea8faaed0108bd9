#include "bench/tune/tune_search.h"

#include <algorithm>
#include <map>

namespace feedrate::bench {
namespace {

class Curve {
 public:
  explicit Curve(const MeasureWorkers& measure) : measure_(measure) {}

  // The point at `workers`, measuring it the first time; nullptr when refused. The pointer is
  // valid until the next call.
  const CurvePoint* at(int workers) {
    auto found = index_.find(workers);
    if (found == index_.end()) {
      result_.points.push_back(measure_(workers));
      result_.points.back().workers = workers;
      result_.seconds += result_.points.back().seconds;
      found = index_.emplace(workers, result_.points.size() - 1).first;
    }
    const CurvePoint& point = result_.points[found->second];
    return point.refused ? nullptr : &point;
  }

  // Sets best and knee from the usable points; returns the best throughput (0: none).
  double judge() {
    double best_rate = 0;
    result_.best = -1;
    for (const CurvePoint& p : result_.points) {
      if (!p.refused && (result_.best < 0 || p.images_per_s > best_rate)) {
        best_rate = p.images_per_s;
        result_.best = p.workers;
      }
    }
    result_.knee = -1;
    for (const CurvePoint& p : result_.points) {
      if (!p.refused && p.images_per_s >= kKneeShare * best_rate &&
          (result_.knee < 0 || p.workers < result_.knee)) {
        result_.knee = p.workers;
      }
    }
    return best_rate;
  }

  // The largest measured count below the knee, or -1.
  int below_knee() const {
    int below = -1;
    for (const CurvePoint& p : result_.points) {
      if (p.workers < result_.knee && !p.refused) below = std::max(below, p.workers);
    }
    return below;
  }

  int knee() const { return result_.knee; }
  SearchResult take() { return std::move(result_); }

 private:
  const MeasureWorkers& measure_;
  SearchResult result_;
  std::map<int, std::size_t> index_;
};

}  // namespace

SearchResult smart_search(int min_workers, int max_workers, const MeasureWorkers& measure) {
  Curve curve(measure);
  const CurvePoint* first = curve.at(min_workers);
  if (first == nullptr) {
    curve.judge();
    return curve.take();
  }
  int previous = min_workers;
  double previous_rate = first->images_per_s;
  // A refused count caps the climb below it: the counts in between are tried instead.
  int cap = max_workers;
  while (previous < cap) {
    const int next = std::min(cap, previous == 0 ? 1 : previous * 2);
    const CurvePoint* point = curve.at(next);
    if (point == nullptr) {
      cap = next - 1;
      continue;
    }
    const double rate = point->images_per_s;
    const bool flat = rate < previous_rate * (1 + kClimbGain);
    previous = next;
    previous_rate = rate;
    if (flat) break;
  }
  curve.judge();
  // Bisect towards the knee: the curve is flat at and above it, below 95% of the best under it.
  for (int lo = curve.below_knee(); curve.knee() >= 0 && lo >= 0 && curve.knee() - lo > 1;
       lo = curve.below_knee()) {
    if (curve.at(lo + (curve.knee() - lo) / 2) == nullptr) break;
    curve.judge();
  }
  return curve.take();
}

SearchResult exhaustive_search(int min_workers, int max_workers, const MeasureWorkers& measure) {
  Curve curve(measure);
  for (int workers = min_workers; workers <= max_workers; ++workers) {
    if (curve.at(workers) == nullptr) break;
  }
  curve.judge();
  return curve.take();
}

std::vector<CurvePoint> by_workers(const SearchResult& result) {
  std::vector<CurvePoint> points = result.points;
  std::sort(points.begin(), points.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.workers < b.workers; });
  return points;
}

}  // namespace feedrate::bench
