// The verdict end to end on the real clock: what `feedrate bench` runs most often, a bare loop
// over a dataset in the page cache with no emulated disk, through the whole loader on a small
// generated dataset. Decoding (about 1 ms of CPU an image here; the floor below allows a
// machine 10x slower or as loaded) is far below what the page cache feeds, so the cpu capacity
// binds. Every other verdict, and the cpu verdicts over a fast emulated disk, run on a fake
// clock in fake_clock_verdict_test.cc, also under the sanitizers.
// No timing thresholds: the test asserts which resource binds. It judges real time, which the
// sanitizers slow unevenly (decoding most), so `make test-asan` and `make test-tsan` leave this
// suite out (the Makefile's TIMING_SCENARIOS).
#include "tests/loader/verdict_scenario.h"

#include <cstdint>

namespace feedrate {
namespace {

class VerdictScenario : public VerdictFixture {};

TEST_F(VerdictScenario, ABareLoopOverThePageCacheIsCpuBound) {
  Loader loader(options(1));
  while (loader.next()) {
  }
  const Report r = loader.report();
  EXPECT_EQ(r.verdict.bottleneck, Resource::kCpu) << explain(r);
  EXPECT_EQ(r.images, 96u);
}

}  // namespace
}  // namespace feedrate
