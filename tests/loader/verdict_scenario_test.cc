// The verdict end to end: a matrix of settings of the emulated disk (throttle), the worker
// count, the training step and the memory budget, run through the whole loader on a small
// generated dataset. Each expected verdict is derived from the capacities the setting implies,
// with every setting at least twice as far from a crossover as this machine's noise can move it:
//   io        the throttle's MB/s over the dataset's bytes per image (its files are measured
//             here), or a batch of reads per read latency;
//   cpu       at least kDecodeFloor images/s per decode thread (a 64 px crop of these ~500 x 375
//             JPEGs decodes in about 1 ms on one core; the floor allows a machine 10x slower or
//             as loaded), at most what the page cache feeds (far above);
//   consumer  the batch over the step the test sleeps;
//   ram       with one slot: a batch over its reads, decodes and step together (Little's law).
// No timing thresholds: each test asserts which resource binds. The h2d scenario needs a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "feedrate/loader.h"
#include "loader/diagnosis/verdict.h"
#include "loader/diagnosis/verdict_text.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

// Images/s one decode thread sustains at the least, on any machine this suite runs on.
constexpr double kDecodeFloor = 100;

class VerdictScenario : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    datagen::DatasetSpec spec;
    spec.out = dir_->path() / "data";
    spec.count = 96;
    spec.classes = 2;
    datagen::make_dataset(spec);
    std::uintmax_t bytes = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(spec.out)) {
      if (entry.is_regular_file()) bytes += entry.file_size();
    }
    bytes_per_image_ = static_cast<double>(bytes) / spec.count;
  }
  static void TearDownTestSuite() { delete dir_; }

  static LoaderOptions options(int workers) {
    LoaderOptions o;
    o.source = (dir_->path() / "data").string();
    o.batch_size = kBatch;
    o.transform.size = 64;
    o.num_workers = workers;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }
  // The throttle that lets the disk deliver `images_per_s` of these images.
  static std::string throttle_for(double images_per_s) {
    return std::to_string(images_per_s * bytes_per_image_ / 1e6);
  }
  // Runs `batches` batches with a consumer that spends `step` on each; returns the report.
  static Report run(const LoaderOptions& o, std::chrono::milliseconds step, std::size_t batches) {
    Loader loader(o);
    for (std::size_t b = 0; b < batches; ++b) {
      std::optional<Batch> batch = loader.next();
      if (!batch) break;
      std::this_thread::sleep_for(step);
    }
    return loader.report();
  }
  static std::string explain(const Report& r) {
    const SlotCycle& c = r.capacities.cycle;
    return verdict_summary(r) + ": " + capacities_text(r.capacities, r.verdict) +
           "; a slot's cycle (ms): reads " + std::to_string(1e3 * c.read_s) + ", decodes " +
           std::to_string(1e3 * c.decode_s) + ", copy " + std::to_string(1e3 * c.copy_s) +
           ", held " + std::to_string(1e3 * c.held_s);
  }

  static constexpr std::size_t kBatch = 16;
  static testing::TempDir* dir_;
  static double bytes_per_image_;
};

testing::TempDir* VerdictScenario::dir_ = nullptr;
double VerdictScenario::bytes_per_image_ = 0;

// io: the disk far below the decoders.

TEST_F(VerdictScenario, AThrottledDiskBindsOneWorker) {
  LoaderOptions o = options(1);
  o.throttle = throttle_for(kDecodeFloor / 8);  // 12 images/s against >= 100
  const Report r = run(o, std::chrono::milliseconds(0), 2);
  EXPECT_EQ(r.verdict.bottleneck, "io") << explain(r);
}

TEST_F(VerdictScenario, AThrottledDiskBindsTwoWorkers) {
  LoaderOptions o = options(2);
  o.throttle = throttle_for(2 * kDecodeFloor / 8);  // 25 images/s against >= 200
  const Report r = run(o, std::chrono::milliseconds(0), 3);
  EXPECT_EQ(r.verdict.bottleneck, "io") << explain(r);
}

TEST_F(VerdictScenario, AThrottledDiskBindsAFastTrainingStep) {
  LoaderOptions o = options(2);
  o.throttle = throttle_for(25);  // 25 images/s
  o.training_images_per_s = 800;  // a 20 ms step: 800 images/s
  const Report r = run(o, std::chrono::milliseconds(20), 3);
  EXPECT_EQ(r.verdict.bottleneck, "io") << explain(r);
}

TEST_F(VerdictScenario, ReadLatencyBindsWhenEveryBatchWaitsForItsReads) {
  LoaderOptions o = options(2);
  // Every read takes 400 ms and a batch's 16 reads are in flight together: 40 images/s against
  // >= 200 of decoding, and 3 slots hold 120 images/s.
  o.throttle = "10000,1000000,400000";
  const Report r = run(o, std::chrono::milliseconds(0), 3);
  EXPECT_EQ(r.verdict.bottleneck, "io") << explain(r);
}

// cpu: decoding far below what the page cache feeds.

TEST_F(VerdictScenario, OneWorkerAndABareLoopIsCpuBound) {
  const Report r = run(options(1), std::chrono::milliseconds(0), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, "cpu") << explain(r);
  EXPECT_EQ(r.images, 96u);
}

TEST_F(VerdictScenario, TwoWorkersAndABareLoopAreCpuBound) {
  const Report r = run(options(2), std::chrono::milliseconds(0), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, "cpu") << explain(r);
}

TEST_F(VerdictScenario, DecodingOnTheConsumersThreadIsCpuBound) {
  const Report r = run(options(0), std::chrono::milliseconds(0), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, "cpu") << explain(r);
}

TEST_F(VerdictScenario, AFastEmulatedDiskLeavesDecodingTheLimit) {
  LoaderOptions o = options(1);
  o.throttle = throttle_for(100 * kDecodeFloor);  // 10,000 images/s of disk
  const Report r = run(o, std::chrono::milliseconds(0), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, "cpu") << explain(r);
}

// consumer: a training step far slower than the loader.

TEST_F(VerdictScenario, ASlowStepIsTheLimitForTwoWorkers) {
  // 16 images per 400 ms: 40 images/s against >= 200 of decoding.
  const Report r = run(options(2), std::chrono::milliseconds(400), 4);
  EXPECT_EQ(r.verdict.bottleneck, "consumer") << explain(r);
}

TEST_F(VerdictScenario, ASlowStepIsTheLimitForOneWorker) {
  // 16 images per 500 ms: 32 images/s against >= 100.
  const Report r = run(options(1), std::chrono::milliseconds(500), 3);
  EXPECT_EQ(r.verdict.bottleneck, "consumer") << explain(r);
}

TEST_F(VerdictScenario, ASlowStepIsTheLimitOverAThrottledDisk) {
  LoaderOptions o = options(2);
  o.throttle = throttle_for(400);  // 400 images/s of disk
  o.training_images_per_s = 40;
  const Report r = run(o, std::chrono::milliseconds(400), 4);  // 40 images/s
  EXPECT_EQ(r.verdict.bottleneck, "consumer") << explain(r);
}

// ram: one batch in flight, so reads, decodes and the step cannot overlap.

TEST_F(VerdictScenario, OneSlotWithSlowReadsAndAStepIsRamBound) {
  LoaderOptions o = options(2);
  o.prefetch_batches = 1;  // as a memory budget that fits one batch allows
  // Reads of a batch take 150 ms (160/150 ms = 107 images/s of disk) and the step 150 ms
  // (107 images/s of training); one slot serves a batch per 300 ms or more: at most 53.
  o.throttle = "10000,1000000,150000";
  const Report r = run(o, std::chrono::milliseconds(150), 5);
  EXPECT_EQ(r.run.slots, 1u);
  EXPECT_EQ(r.verdict.bottleneck, "ram") << explain(r);
}

TEST_F(VerdictScenario, AMemoryBudgetOfOneBatchIsRamBound) {
  LoaderOptions o = options(2);
  o.prefetch_batches = 8;
  o.memory_budget_mb = 4;  // room for one batch of 16 x 64 x 64 x 3 bytes and its reads
  o.throttle = "10000,1000000,150000";
  const Report r = run(o, std::chrono::milliseconds(150), 5);
  ASSERT_EQ(r.run.slots, 1u) << "the budget should allow one batch";
  EXPECT_EQ(r.verdict.bottleneck, "ram") << explain(r);
}

TEST_F(VerdictScenario, ReportBeforeAnyBatchMeasuredNothing) {
  Loader loader(options(1));
  const Report r = loader.report();
  EXPECT_EQ(r.images, 0u);
  EXPECT_EQ(r.verdict.bottleneck, "none");
}

TEST_F(VerdictScenario, ReportIsAvailableDuringTheRun) {
  Loader loader(options(2));
  std::optional<Batch> batch = loader.next();
  const Report r = loader.report();
  EXPECT_EQ(r.images, kBatch);
  EXPECT_EQ(r.stages.size(), 5u);
  EXPECT_GT(r.wall_s, 0);
  EXPECT_NE(r.verdict.bottleneck, "none");
}

}  // namespace
}  // namespace feedrate
