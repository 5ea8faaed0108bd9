// The verdict end to end on the real clock: settings of the emulated disk (throttle) and the
// worker count run through the whole loader on a small generated dataset. What the run's real
// decoding decides stays here: the cpu verdicts, and a throttled disk against two decode threads
// (their decodes overlap the reads, which a fake clock cannot time). The io, consumer and ram
// verdicts run on a fake clock in fake_clock_verdict_test.cc, also under the sanitizers. Each
// expected verdict is derived from the capacities the setting implies, with every setting at
// least twice as far from a crossover as this machine's noise can move it:
//   io   the throttle's MB/s over the dataset's bytes per image (its files are measured here);
//   cpu  at least kDecodeFloor images/s per decode thread (a 64 px crop of these ~500 x 375
//        JPEGs decodes in about 1 ms on one core; the floor allows a machine 10x slower or as
//        loaded), at most what the page cache feeds (far above).
// No timing thresholds: each test asserts which resource binds. The sanitizers' slowdown moves
// decoding by more than these margins, so `make test-asan` and `make test-tsan` leave this
// suite out (the Makefile's TIMING_SCENARIOS).
#include "tests/loader/verdict_scenario.h"

#include <cstdint>
#include <optional>

namespace feedrate {
namespace {

// Images/s one decode thread sustains at the least, on any machine this suite runs on.
constexpr double kDecodeFloor = 100;

class VerdictScenario : public VerdictFixture {
 protected:
  // Runs `batches` batches with a consumer that does nothing between them; returns the report.
  static Report run(const LoaderOptions& o, std::size_t batches) {
    Loader loader(o);
    for (std::size_t b = 0; b < batches; ++b) {
      if (!loader.next()) break;
    }
    return loader.report();
  }
};

TEST_F(VerdictScenario, AThrottledDiskBindsTwoWorkers) {
  LoaderOptions o = options(2);
  o.throttle = throttle_for(2 * kDecodeFloor / 8);  // 25 images/s against >= 200
  const Report r = run(o, 3);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kIo) << explain(r);
}

// cpu: decoding far below what the page cache feeds.

TEST_F(VerdictScenario, OneWorkerAndABareLoopIsCpuBound) {
  const Report r = run(options(1), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kCpu) << explain(r);
  EXPECT_EQ(r.images, 96u);
}

TEST_F(VerdictScenario, TwoWorkersAndABareLoopAreCpuBound) {
  const Report r = run(options(2), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kCpu) << explain(r);
}

TEST_F(VerdictScenario, DecodingOnTheConsumersThreadIsCpuBound) {
  const Report r = run(options(0), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kCpu) << explain(r);
}

TEST_F(VerdictScenario, AFastEmulatedDiskLeavesDecodingTheLimit) {
  LoaderOptions o = options(1);
  o.throttle = throttle_for(100 * kDecodeFloor);  // 10,000 images/s of disk
  const Report r = run(o, SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kCpu) << explain(r);
}

TEST_F(VerdictScenario, ReportBeforeAnyBatchMeasuredNothing) {
  Loader loader(options(1));
  const Report r = loader.report();
  EXPECT_EQ(r.images, 0u);
  EXPECT_EQ(r.verdict.bottleneck, std::nullopt);
}

TEST_F(VerdictScenario, ReportIsAvailableDuringTheRun) {
  Loader loader(options(2));
  std::optional<Batch> batch = loader.next();
  const Report r = loader.report();
  EXPECT_EQ(r.images, kBatch);
  EXPECT_EQ(r.stages.size(), 5u);
  EXPECT_GT(r.wall_s, 0);
  EXPECT_TRUE(r.verdict.bottleneck.has_value());
}

}  // namespace
}  // namespace feedrate
