// The tuner of `feedrate tune` on synthetic figures: which settings it runs, which it refuses for
// memory (projected or measured), and what the adjustment of prefetch_batches and the queue depth
// keeps.
#include "bench/tune/tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace feedrate::bench {
namespace {

using Key = std::tuple<int, std::size_t, unsigned>;

// A measuring function of figures given per setting, which records the settings it ran.
class Synthetic {
 public:
  using Figure = std::function<double(const TuneSetting&)>;
  explicit Synthetic(
      Figure rate, Figure peak_rss_mb = [](const TuneSetting&) { return 100.0; })
      : rate_(std::move(rate)), peak_rss_mb_(std::move(peak_rss_mb)) {}

  std::vector<Key> ran;  // in the order run

  MeasureSetting measure() {
    return [this](const TuneSetting& s) {
      ran.emplace_back(s.workers, s.prefetch_batches, s.queue_depth);
      PointFigures figures;
      figures.seconds = 1;
      figures.costs.images_per_s = rate_(s);
      figures.costs.peak_rss_mb = peak_rss_mb_(s);
      figures.costs.setting.batch_size = 100;  // a batch slot of 100 MB
      figures.costs.image.bytes_per_image = 0.5e6;
      figures.costs.h2d_bytes_per_image = 0.5e6;
      figures.bottleneck = Resource::kCpu;
      return figures;
    };
  }

 private:
  Figure rate_, peak_rss_mb_;
};

TuneBounds bounds(int max_workers, double memory_limit_mb, bool adjust) {
  TuneBounds b;
  b.min_workers = 1;
  b.max_workers = max_workers;
  b.memory_limit_mb = memory_limit_mb;
  b.adjust = adjust;
  return b;
}

TEST(Tuner, ACountProjectedPastTheMemoryMarginIsRefusedWithoutRunning) {
  // 100 MB and 100 images/s per worker; the margin is 90% of 500 MB: 450 MB.
  Synthetic synthetic{[](const TuneSetting& s) { return 100.0 * s.workers; },
                      [](const TuneSetting& s) { return 100.0 * s.workers; }};
  const TuneResult result = tune(bounds(16, 500, false), synthetic.measure());
  // Climbs 1, 2, 4; 8, 7, 6 and 5 project past 450 MB; then bisects to 3.
  EXPECT_EQ(synthetic.ran, (std::vector<Key>{{1, 3, 64}, {2, 3, 64}, {4, 3, 64}, {3, 3, 64}}));
  int refused = 0;
  for (const CurvePoint& p : result.search.points) {
    if (!p.refused) continue;
    ++refused;
    EXPECT_GT(p.workers, 4);
    EXPECT_EQ(p.images_per_s, 0);
    EXPECT_NE(p.reason.find("projected peak RSS"), std::string::npos) << p.reason;
    EXPECT_NE(p.reason.find("passes 90% of the 500 MB limit"), std::string::npos) << p.reason;
  }
  EXPECT_EQ(refused, 4);
  EXPECT_EQ(result.recommended.workers, 4);
  EXPECT_EQ(result.recommended_images_per_s, 400);
  EXPECT_EQ(result.recommended_costs.images_per_s, 400);
  EXPECT_TRUE(result.adjust.empty());
}

TEST(Tuner, ACountMeasuredPastTheMemoryMarginIsNeverRecommended) {
  Synthetic synthetic{[](const TuneSetting& s) { return 100.0 * s.workers; },
                      [](const TuneSetting& s) { return s.workers >= 2 ? 2000.0 : 100.0; }};
  const TuneResult result = tune(bounds(8, 1000, false), synthetic.measure());
  ASSERT_EQ(result.search.points.size(), 2u);
  const CurvePoint& past = result.search.points[1];
  EXPECT_TRUE(past.refused);
  EXPECT_EQ(past.images_per_s, 200);  // run, then refused
  EXPECT_NE(past.reason.find("measured peak RSS 2000 MB"), std::string::npos) << past.reason;
  EXPECT_EQ(result.search.best, 1);
  EXPECT_EQ(result.recommended.workers, 1);
}

TEST(Tuner, EverySettingPastTheLimitIsAnErrorNamingIt) {
  Synthetic synthetic{[](const TuneSetting&) { return 100.0; },
                      [](const TuneSetting&) { return 5000.0; }};
  try {
    tune(bounds(4, 1000, true), synthetic.measure());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("memory limit (1000 MB)"), std::string::npos) << e.what();
  }
}

TEST(Tuner, TheAdjustmentKeepsAGainOfThreePercentOverTheRecommendationSoFar) {
  // At the knee (1 worker, prefetch 3, queue depth 64: 1000 images/s), twice the prefetch gains
  // 5% and is kept; four times the queue depth gains 7% over the knee but 1.9% over the deeper
  // prefetch, and is not.
  Synthetic synthetic{[](const TuneSetting& s) {
    if (s.prefetch_batches == 6) return 1050.0;
    if (s.queue_depth == 256) return 1070.0;
    if (s.queue_depth == 16) return 900.0;
    return 1000.0;
  }};
  const TuneResult result = tune(bounds(1, 10'000, true), synthetic.measure());
  ASSERT_EQ(result.adjust.size(), 3u);
  EXPECT_EQ(synthetic.ran, (std::vector<Key>{{1, 3, 64}, {1, 6, 64}, {1, 3, 16}, {1, 3, 256}}));
  EXPECT_EQ(result.recommended.prefetch_batches, 6u);
  EXPECT_EQ(result.recommended.queue_depth, 64u);
  EXPECT_EQ(result.recommended_images_per_s, 1050);
  EXPECT_EQ(result.recommended_costs.images_per_s, 1050);
  EXPECT_EQ(result.seconds, 4);  // one second a setting run

  // A gain under 3% is no gain: the knee stays.
  Synthetic small{[](const TuneSetting& s) { return s.prefetch_batches == 6 ? 1020.0 : 1000.0; }};
  const TuneResult kept = tune(bounds(1, 10'000, true), small.measure());
  EXPECT_EQ(kept.recommended.prefetch_batches, 3u);
  EXPECT_EQ(kept.recommended.queue_depth, 64u);
}

TEST(Tuner, ADeeperPrefetchProjectedPastTheMarginIsRefusedWithoutRunning) {
  // The knee peaks at 800 MB; each batch in flight adds a slot of 100 MB, so 3 more pass the
  // 900 MB margin of a 1000 MB limit. The queue depths keep the knee's slots and run.
  Synthetic synthetic{[](const TuneSetting&) { return 1000.0; },
                      [](const TuneSetting&) { return 800.0; }};
  const TuneResult result = tune(bounds(1, 1000, true), synthetic.measure());
  ASSERT_EQ(result.adjust.size(), 3u);
  EXPECT_TRUE(result.adjust[0].point.refused);
  EXPECT_NE(result.adjust[0].point.reason.find("projected peak RSS 1100 MB"), std::string::npos)
      << result.adjust[0].point.reason;
  EXPECT_EQ(synthetic.ran, (std::vector<Key>{{1, 3, 64}, {1, 3, 16}, {1, 3, 256}}));
}

TEST(Tuner, TheQueueDepthsTriedStayWithinTheOptionsBounds) {
  const std::vector<std::tuple<unsigned, unsigned, unsigned>> depths = {{2, 1, 8},
                                                                        {2048, 512, 4096}};
  for (const auto& [depth, quarter, four_times] : depths) {
    Synthetic synthetic{[](const TuneSetting&) { return 1000.0; }};
    TuneBounds b = bounds(1, 10'000, true);
    b.queue_depth = depth;
    const TuneResult result = tune(b, synthetic.measure());
    ASSERT_EQ(result.adjust.size(), 3u);
    EXPECT_EQ(result.adjust[1].setting.queue_depth, quarter);
    EXPECT_EQ(result.adjust[2].setting.queue_depth, four_times);
  }
}

TEST(Tuner, TellsOfEveryPointAsItComes) {
  Synthetic synthetic{[](const TuneSetting& s) { return 100.0 * std::min(s.workers, 2); }};
  std::vector<std::tuple<int, bool>> told;
  const TuneResult result = tune(bounds(4, 10'000, true), synthetic.measure(),
                                 [&](const TuneSetting& s, const CurvePoint&, bool adjusting) {
                                   told.emplace_back(s.workers, adjusting);
                                 });
  std::vector<std::tuple<int, bool>> expected;
  for (const CurvePoint& p : result.search.points) expected.emplace_back(p.workers, false);
  for (const AdjustPoint& a : result.adjust) expected.emplace_back(a.setting.workers, true);
  EXPECT_EQ(told, expected);
  EXPECT_EQ(result.adjust.size(), 3u);
}

}  // namespace
}  // namespace feedrate::bench
