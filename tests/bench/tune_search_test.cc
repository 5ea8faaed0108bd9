// The num_workers search on synthetic curves: where the knee lands, how many points the smart
// search spends against the exhaustive sweep, and refused (memory) settings.
#include "bench/tune/tune_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace feedrate::bench {
namespace {

MeasureWorkers curve(std::function<double(int)> rate, int refuse_from = 1 << 30) {
  return [rate, refuse_from](int workers) {
    CurvePoint p;
    p.images_per_s = rate(workers);
    p.peak_rss_mb = 50 + 5.0 * workers;
    p.seconds = 1;
    if (workers >= refuse_from) {
      p = CurvePoint{};
      p.refused = true;
      p.reason = "memory";
    }
    return p;
  };
}

double rate_at(const SearchResult& r, int workers) {
  for (const CurvePoint& p : r.points) {
    if (p.workers == workers) return p.images_per_s;
  }
  return -1;
}

TEST(TuneSearch, SaturatingCurveFindsTheExhaustiveKneeWithFewerPoints) {
  const auto measure = curve([](int w) { return 100.0 * std::min(w, 6); });
  const SearchResult smart = smart_search(1, 16, measure);
  const SearchResult full = exhaustive_search(1, 16, measure);
  EXPECT_EQ(full.knee, 6);
  EXPECT_EQ(full.points.size(), 16u);
  EXPECT_EQ(smart.knee, 6);
  EXPECT_LT(smart.points.size(), full.points.size());
  EXPECT_LT(smart.seconds, full.seconds);
  // Climbs 1, 2, 4, 8, 16, then bisects 6 and 5.
  std::vector<int> order;
  for (const CurvePoint& p : smart.points) order.push_back(p.workers);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 4, 8, 16, 6, 5}));
}

TEST(TuneSearch, FlatCurveStopsAfterTwoPoints) {
  const SearchResult smart = smart_search(1, 8, curve([](int) { return 150.0; }));
  EXPECT_EQ(smart.points.size(), 2u);
  EXPECT_EQ(smart.knee, 1);
}

TEST(TuneSearch, KneeIsTheSmallestCountWithin95PercentOfTheBest) {
  // 100, 190, 270, 296, 300: 4 workers reach 98.7% of the best (5).
  const auto measure = curve([](int w) {
    static const double rates[] = {0, 100, 190, 270, 296, 300};
    return rates[w];
  });
  const SearchResult full = exhaustive_search(1, 5, measure);
  EXPECT_EQ(full.best, 5);
  EXPECT_EQ(full.knee, 4);
  const SearchResult smart = smart_search(1, 5, measure);
  EXPECT_EQ(smart.knee, 4);
  EXPECT_GE(rate_at(smart, smart.knee), kKneeShare * rate_at(full, full.best));
}

TEST(TuneSearch, StartsAtZeroWorkers) {
  const SearchResult smart = smart_search(0, 4, curve([](int w) { return w == 0 ? 50.0 : 100.0; }));
  EXPECT_EQ(smart.points.front().workers, 0);
  EXPECT_EQ(smart.knee, 1);
}

TEST(TuneSearch, RefusedSettingsEndTheClimbAndAreNeverTheKnee) {
  const auto measure = curve([](int w) { return 100.0 * w; }, 4);
  const SearchResult smart = smart_search(1, 16, measure);
  EXPECT_EQ(smart.best, 3);
  EXPECT_EQ(smart.knee, 3);
  ASSERT_FALSE(smart.points.empty());
  EXPECT_TRUE(std::any_of(smart.points.begin(), smart.points.end(),
                          [](const CurvePoint& p) { return p.refused && p.workers == 4; }));
  const SearchResult full = exhaustive_search(1, 16, measure);
  EXPECT_EQ(full.knee, 3);
  EXPECT_EQ(full.points.size(), 4u);  // 1, 2, 3, then 4 refused
}

TEST(TuneSearch, EverythingRefusedLeavesNoKnee) {
  const SearchResult smart = smart_search(1, 4, curve([](int) { return 1.0; }, 0));
  EXPECT_EQ(smart.knee, -1);
  EXPECT_EQ(smart.best, -1);
}

TEST(TuneSearch, ByWorkersSorts) {
  const SearchResult smart =
      smart_search(1, 16, curve([](int w) { return 100.0 * std::min(w, 6); }));
  const std::vector<CurvePoint> sorted = by_workers(smart);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end(),
                             [](const auto& a, const auto& b) { return a.workers < b.workers; }));
}

}  // namespace
}  // namespace feedrate::bench
