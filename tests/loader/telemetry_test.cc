// The telemetry gives figures only, the one diagnosis reads them, and the pack cache's pacing
// reads the cpu capacity from the same formula as the verdict.
#include "loader/pipeline/telemetry.h"

#include <gtest/gtest.h>

#include <chrono>

#include "loader/diagnosis/diagnose.h"
#include "tests/support/fake_clock.h"

namespace feedrate {
namespace {

using std::chrono::milliseconds;
using testing::FakeClock;

RunSetting two_workers_on_two_cores() {
  RunSetting run;
  run.batch_size = 4;
  run.num_workers = 2;
  run.cpus = 2;
  run.prefetch_batches = 2;
  return run;
}

// A run of 10 batches of 4 images over 2 s, each image 20 ms of decode CPU.
void run_ten_batches(Telemetry& telemetry, FakeClock& clock) {
  telemetry.start();
  detail::Slot slot;
  slot.indices = {0, 1, 2, 3};
  for (int batch = 0; batch < 10; ++batch) {
    for (int image = 0; image < 4; ++image) telemetry.decoded(25'000'000, 20'000'000);
    clock.advance(milliseconds(200));
    telemetry.delivered(slot);
  }
}

TEST(Telemetry, GivesFiguresAndLeavesTheDiagnosisToItsOneOwner) {
  FakeClock clock;
  Telemetry telemetry(two_workers_on_two_cores(), clock);
  run_ten_batches(telemetry, clock);

  Report report = telemetry.figures();
  EXPECT_EQ(report.images, 40u);
  EXPECT_DOUBLE_EQ(report.wall_s, 2.0);
  EXPECT_DOUBLE_EQ(report.figures.decode_cpu_s, 0.8);
  EXPECT_FALSE(report.verdict.bottleneck.has_value());
  EXPECT_EQ(report.capacities.delivered, 0) << "capacities are the diagnosis's";

  diagnose(report);
  const Capacity& cpu = report.capacities.of(Resource::kCpu);
  ASSERT_TRUE(cpu.measured);
  // 20 ms of CPU an image on 2 threads and 2 cores, 100 images/s, while the decodes were on a
  // core 80% of their time (20 of 25 ms): 80 images/s.
  EXPECT_NEAR(cpu.images_per_s, 80.0, 1e-9);
  EXPECT_DOUBLE_EQ(report.costs.images_per_s, 20.0);
}

TEST(Telemetry, PacesThePackCacheWithTheVerdictsCpuCapacity) {
  FakeClock clock;
  Telemetry telemetry(two_workers_on_two_cores(), clock);
  EXPECT_EQ(telemetry.pacing(2).cpu_capacity_images_per_s, 0) << "nothing measured yet";
  run_ten_batches(telemetry, clock);

  const PacingCounters counters = telemetry.pacing(2);
  EXPECT_DOUBLE_EQ(counters.wall_s, 2.0);
  EXPECT_EQ(counters.delivered, 40u);
  EXPECT_EQ(counters.decoded, 40u);
  EXPECT_DOUBLE_EQ(counters.decode_busy_s, 1.0);
  EXPECT_EQ(counters.cores, 2);
  Report report = telemetry.figures();
  diagnose(report);
  EXPECT_DOUBLE_EQ(counters.cpu_capacity_images_per_s,
                   report.capacities.of(Resource::kCpu).images_per_s);
}

}  // namespace
}  // namespace feedrate
