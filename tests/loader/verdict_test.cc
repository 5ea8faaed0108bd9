// The verdict: judge() on hand-made measurements (classification and advice), and scenarios on
// generated datasets whose margins are built into the scenario, so they hold on a noisy 2-core
// machine: a consumer far slower than decoding (consumer), decoding far slower than a consumer
// that does nothing (cpu), a disk throttled far below decoding (io), and one batch in flight
// with slow reads (ram). The h2d scenario needs a GPU: see tests/gpu.
#include "loader/verdict.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>

#include "loader/loader.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

VerdictInputs measured() {
  VerdictInputs in;
  in.wall_s = 10;
  in.images = 10'000;
  in.batch_size = 64;
  in.decode_busy_s = 19;  // 1.9 ms per image
  in.num_workers = 2;
  in.cpus = 2;
  in.bytes_read = 1'100'000'000;  // 110 KB per image
  in.dataset_bytes = 41'000'000'000;
  in.memory_bytes = 24'000'000'000;
  in.in_flight_capacity = 3;
  in.slot_bytes = 9'633'792;
  return in;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& line : lines) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(Judge, SmallWaitsMeanTheLoaderKeepsUp) {
  VerdictInputs in = measured();
  in.stall_cpu_s = 0.3;  // 3% of the wall time
  in.consumer_busy_s = 9.5;
  const Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "consumer");
  EXPECT_NEAR(v.stall_fraction, 0.03, 1e-9);
  EXPECT_TRUE(any_contains(v.advice, "the loader keeps up")) << v.advice[0];
}

TEST(Judge, CpuStallsGiveCoresForTheTargetRate) {
  VerdictInputs in = measured();
  in.stall_cpu_s = 6;
  in.stall_io_s = 1;
  in.target_images_per_s = 2500;
  const Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "cpu");
  // 2,500 images/s x 1.9 ms = 4.75 -> about 5 cores.
  EXPECT_TRUE(
      any_contains(v.advice,
                   "decode needs 1.90 ms of CPU per image: feeding 2,500 images/s takes about 5 "
                   "cores; this machine has 2"))
      << v.advice[0];
}

TEST(Judge, CpuAdviceRaisesNumWorkersToTheCores) {
  VerdictInputs in = measured();
  in.num_workers = 1;
  in.cpus = 8;
  in.stall_cpu_s = 5;
  const Verdict v = judge(in);
  EXPECT_TRUE(any_contains(v.advice, "raise num_workers from 1 to 8"));
  EXPECT_TRUE(any_contains(v.advice, "each decode thread adds at most 526 images/s"));
}

TEST(Judge, IoStallsGiveDiskAndPageCacheAdvice) {
  VerdictInputs in = measured();
  in.stall_io_s = 7;
  in.target_images_per_s = 5000;  // x 110 KB = 550 MB/s
  const Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "io");
  EXPECT_TRUE(any_contains(v.advice, "reads delivered 110 MB/s (110 KB per image)"));
  EXPECT_TRUE(any_contains(v.advice, "needs 550 MB/s: an NVMe SSD"));
  EXPECT_TRUE(any_contains(v.advice, "41.0 GB of RAM"));
}

TEST(Judge, SeekBoundShuffledShardsAreAdvisedBlocksWithAProjection) {
  VerdictInputs in = measured();
  in.wall_s = 66.7;  // 150 images/s, one read per image: 150 reads/s of 110 KB on a 150-IOPS disk
  in.images = 10'000;
  in.stall_io_s = 50;
  in.read_operations = 10'000;
  in.disk_iops = 150;
  in.disk_mb_per_s = 200;
  in.tar_shards = true;
  in.block_bytes = 4 << 20;
  const Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "io");
  // A 4.19 MB block: 1/150 s + 4.19 MB / 200 MB/s = 27.6 ms for 38 images: about 1,380 images/s,
  // capped by 2 threads at 1.9 ms per image: 1,053.
  EXPECT_TRUE(any_contains(v.advice, "seek-bound")) << v.advice[1];
  EXPECT_TRUE(any_contains(v.advice, "--shuffle blocks"));
  EXPECT_TRUE(any_contains(v.advice, "about 1,053 images/s"));

  // Not when already in blocks, on an unknown disk, or when reads are large or few.
  for (int change = 0; change < 4; ++change) {
    VerdictInputs other = in;
    if (change == 0) other.shuffle_blocks = true;
    if (change == 1) other.disk_iops = 0;
    if (change == 2) other.read_operations = 100;  // 11 MB per read
    if (change == 3) other.tar_shards = false;
    EXPECT_EQ(seek_bound_advice(other), "") << "change " << change;
    EXPECT_FALSE(any_contains(judge(other).advice, "seek-bound")) << "change " << change;
  }
}

TEST(Judge, RamAndH2dStalls) {
  VerdictInputs in = measured();
  in.stall_ram_s = 4;
  in.stall_io_s = 1;
  Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "ram");
  EXPECT_TRUE(any_contains(v.advice, "prefetch_batches=5"));
  in = measured();
  in.stall_h2d_s = 4;
  in.copy_busy_s = 2;
  in.copy_bytes = 4'000'000'000;
  v = judge(in);
  EXPECT_EQ(v.bottleneck, "h2d");
  EXPECT_TRUE(any_contains(v.advice, "2.00 GB/s"));
}

TEST(Judge, InfersTheTrainingRateOnlyFromAMeasurableStep) {
  VerdictInputs in = measured();
  in.stall_cpu_s = 5;
  in.consumer_busy_s = 4;  // 10,000 images in 4 s of steps: 2,500 images/s
  EXPECT_TRUE(any_contains(judge(in).advice, "feeding 2,500 images/s"));
  in.consumer_busy_s = 0.01;  // a bare benchmark loop
  EXPECT_FALSE(any_contains(judge(in).advice, "feeding"));
}

// Scenarios through the whole loader.
class VerdictScenario : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    // Large images make decoding the dominant cost by a wide margin.
    datagen::DatasetSpec spec;
    spec.out = dir_->path() / "data";
    spec.count = 96;
    spec.classes = 2;
    datagen::make_dataset(spec);
  }
  static void TearDownTestSuite() { delete dir_; }
  static LoaderOptions options() {
    LoaderOptions o;
    o.source = (dir_->path() / "data").string();
    o.batch_size = 16;
    o.transform.size = 64;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }
  // Runs up to `batches` batches with a consumer that spends `step` on each; returns the report.
  static Report run(const LoaderOptions& o, std::chrono::milliseconds step,
                    std::size_t batches = SIZE_MAX) {
    Loader loader(o);
    for (std::size_t b = 0; b < batches; ++b) {
      std::optional<Batch> batch = loader.next();
      if (!batch) break;
      std::this_thread::sleep_for(step);
    }
    return loader.report();
  }
  static testing::TempDir* dir_;
};

testing::TempDir* VerdictScenario::dir_ = nullptr;

TEST_F(VerdictScenario, OneWorkerAndAFastConsumerIsCpuBound) {
  LoaderOptions o = options();
  o.num_workers = 1;
  const Report r = run(o, std::chrono::milliseconds(0));
  EXPECT_EQ(r.verdict.bottleneck, "cpu") << r.verdict.advice.front();
  EXPECT_GT(r.verdict.stall_fraction, 0.5);
  EXPECT_GT(r.verdict.stall_cpu_s, 4 * r.verdict.stall_io_s);
  EXPECT_EQ(r.images, 96u);
  EXPECT_GT(r.decode_cpu_ms_per_image, 0);
}

TEST_F(VerdictScenario, AConsumerSlowerThanTheLoaderIsTheLimit) {
  LoaderOptions o = options();
  o.num_workers = 2;
  // 16 images decode in about 30 ms of CPU on this machine; a 400 ms step leaves a wide margin.
  const Report r = run(o, std::chrono::milliseconds(400));
  EXPECT_EQ(r.verdict.bottleneck, "consumer") << r.verdict.stall_fraction;
  EXPECT_LT(r.verdict.stall_fraction, kStallThreshold);
  const auto consumer = std::find_if(r.stages.begin(), r.stages.end(),
                                     [](const StageFigures& s) { return s.name == "consumer"; });
  ASSERT_NE(consumer, r.stages.end());
  EXPECT_GT(consumer->utilization, 0.8);
}

TEST_F(VerdictScenario, AThrottledDiskIsIoBound) {
  LoaderOptions o = options();
  o.num_workers = 2;
  // 2 MB/s of ~100 KB images is 20 images/s (50 ms a read); two workers decode over 500
  // images/s on an idle machine, and still several times 20 on one loaded by other jobs.
  o.throttle = "2";
  const Report r = run(o, std::chrono::milliseconds(0), 3);
  EXPECT_EQ(r.verdict.bottleneck, "io") << r.verdict.advice.front();
  EXPECT_GT(r.verdict.stall_io_s, 4 * r.verdict.stall_cpu_s);
  EXPECT_TRUE(r.verdict.advice.front().find("reads delivered") != std::string::npos);
}

TEST_F(VerdictScenario, OneBatchInFlightWithReadLatencyIsRamBound) {
  LoaderOptions o = options();
  o.num_workers = 2;
  o.batch_size = 4;
  o.prefetch_batches = 1;  // as a memory budget that fits one batch would allow
  // Every read takes 80 ms: with one slot nothing is read while the consumer holds the batch,
  // so each batch after the first waits 80 ms for its slot's reads (ram); decoding 4 images
  // takes a few ms of the two workers' time, even on a loaded machine.
  o.throttle = "10000,1000000,80000";
  const Report r = run(o, std::chrono::milliseconds(0), 10);
  EXPECT_EQ(r.verdict.bottleneck, "ram") << r.verdict.advice.front();
  EXPECT_GT(r.verdict.stall_ram_s, r.verdict.stall_cpu_s + r.verdict.stall_io_s);
  EXPECT_TRUE(r.verdict.advice.front().find("only 1 batch(es) may be in flight") !=
              std::string::npos);
}

TEST_F(VerdictScenario, DecodingOnTheConsumersThreadIsACpuStall) {
  LoaderOptions o = options();
  o.num_workers = 0;
  const Report r = run(o, std::chrono::milliseconds(0));
  EXPECT_EQ(r.verdict.bottleneck, "cpu");
}

TEST_F(VerdictScenario, ReportIsAvailableDuringTheRun) {
  LoaderOptions o = options();
  Loader loader(o);
  EXPECT_EQ(loader.report().images, 0u);
  std::optional<Batch> batch = loader.next();
  const Report r = loader.report();
  EXPECT_EQ(r.images, 16u);
  EXPECT_EQ(r.stages.size(), 5u);
  EXPECT_GT(r.wall_s, 0);
}

}  // namespace
}  // namespace feedrate
