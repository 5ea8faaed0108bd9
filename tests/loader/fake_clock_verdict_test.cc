// The verdict end to end on a fake clock (tests/support/fake_clock.h): the io, cpu, consumer and
// ram verdicts of the whole loader, and the report before and during a run. The fake durations
// (of the emulated disk and the training step) are chosen far from what real decoding costs, so
// that each expected verdict follows from them and from decoding's real CPU time, whatever the
// machine's speed. These run under `make test-asan` and `make test-tsan` too.
//
// The clock's sleepers wait (FakeClock::Sleep::kWaits) and the consumer is the scheduler: while
// it waits for a batch, the time moves to the next read's deadline; its training step advances
// the time by the step. So fake time passes only while the consumer waits or steps, and
// decoding takes no fake time: the decode threads' CPU time is real (thread CPU clocks), which
// the cpu capacity is computed from. Each expected verdict follows from that schedule:
//   io        reads far slower than any decoding: a disk of 0.01 images/s against decoders of
//             at least 10 images/s each. With workers, a read's deadline may pass while a
//             decode runs, which lengthens that decode's fake wall time and lowers the share of
//             its time the decodes got a core; the cpu capacity counts that share down to 1e-3
//             at most (throughput_model.h), which leaves it above a disk of 0.001 images/s;
//   cpu       reads far faster than any decoding: an emulated disk of 10 million images/s (a
//             tenth of a microsecond of fake time an image) against decoders that take at least
//             10 us of CPU an image on any machine (about 1 ms here). The consumer waits
//             through all the fake time there is (it is a bare loop), so its stalls are the run;
//   consumer  the consumer never waits for more than a batch's reads, far below its step, and a
//             consumer that hardly waits is the limit (verdict.h's kStallThreshold). With
//             workers, a step may pass while a decode or a read is under way and lower their
//             capacities; that cannot move this verdict;
//   ram       one slot: its batch is read, decoded (no time moves: nobody sleeps) and held for
//             the step in turn, each part its own share of the slot's cycle (Little's law).
// The real clock's counterpart, over the page cache with no emulated disk, is
// verdict_scenario_test.cc. No timing thresholds: each test asserts which resource binds.
#include <chrono>
#include <cstdint>
#include <optional>

#include "loader/pipeline/pipeline.h"
#include "tests/loader/verdict_scenario.h"
#include "tests/support/fake_clock.h"

namespace feedrate {
namespace {

using std::chrono::seconds;
using testing::FakeClock;

class FakeClockVerdict : public VerdictFixture {
 protected:
  // Images/s of the emulated disk the cpu verdicts read from: far above any decoding.
  static constexpr double kFastDisk = 1e7;

  // Runs `batches` batches with a consumer whose step takes `step` of fake time; returns the
  // report.
  static Report run(const LoaderOptions& o, FakeClock::duration step, std::size_t batches) {
    FakeClock clock(FakeClock::Sleep::kWaits);
    Pipeline pipeline(o, {}, {}, clock);
    // Destroyed before the pipeline: its shutdown must not wait for a fake deadline.
    const struct Release {
      FakeClock& clock;
      ~Release() { clock.release(); }
    } release{clock};
    for (std::size_t b = 0; b < batches; ++b) {
      const std::optional<Batch> batch = pipeline.next([&] { clock.advance_to_next_deadline(); });
      if (!batch) break;
      clock.advance(step);
    }
    return pipeline.report();
  }
};

// io: the disk far below the decoders (at least ten images/s on any machine, under any
// sanitizer).

TEST_F(FakeClockVerdict, AThrottledDiskBindsTheLoader) {
  LoaderOptions o = options(0);
  o.throttle = throttle_for(0.01);  // 100 s an image: 1,600 s a batch
  const Report r = run(o, seconds(0), 3);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kIo) << explain(r);
  EXPECT_EQ(r.images, 3 * kBatch);
  // The reads took their fake time (about 4,800 s), not the milliseconds this test runs for.
  EXPECT_GT(r.wall_s, 1000) << explain(r);
}

TEST_F(FakeClockVerdict, AThrottledDiskBindsAFastTrainingStep) {
  LoaderOptions o = options(0);
  o.throttle = throttle_for(0.01);  // 1,600 s a batch
  o.training_images_per_s = 800;
  const Report r = run(o, seconds(1), 3);  // 16 images/s of training
  EXPECT_EQ(r.verdict.bottleneck, Resource::kIo) << explain(r);
}

TEST_F(FakeClockVerdict, ReadLatencyBindsWhenEveryBatchWaitsForItsReads) {
  LoaderOptions o = options(0);
  o.throttle = "0,0,1000000000";  // every read takes 1,000 s: 0.016 images/s or less
  const Report r = run(o, seconds(0), 3);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kIo) << explain(r);
}

TEST_F(FakeClockVerdict, AThrottledDiskBindsTwoWorkers) {
  LoaderOptions o = options(2);
  o.throttle = throttle_for(0.001);  // 1,000 s an image
  const Report r = run(o, seconds(0), 3);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kIo) << explain(r);
  EXPECT_EQ(r.images, 3 * kBatch);
}

// cpu: decoding far below what an emulated disk of 10 million images/s feeds.

TEST_F(FakeClockVerdict, OneWorkerAndABareLoopIsCpuBound) {
  LoaderOptions o = options(1);
  o.throttle = throttle_for(kFastDisk);
  const Report r = run(o, seconds(0), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kCpu) << explain(r);
  EXPECT_EQ(r.images, 96u);
}

TEST_F(FakeClockVerdict, TwoWorkersAndABareLoopAreCpuBound) {
  LoaderOptions o = options(2);
  o.throttle = throttle_for(kFastDisk);
  const Report r = run(o, seconds(0), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kCpu) << explain(r);
}

TEST_F(FakeClockVerdict, DecodingOnTheConsumersThreadIsCpuBound) {
  LoaderOptions o = options(0);
  o.throttle = throttle_for(kFastDisk);
  const Report r = run(o, seconds(0), SIZE_MAX);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kCpu) << explain(r);
}

// consumer: a training step far slower than the loader.

TEST_F(FakeClockVerdict, ASlowStepIsTheLimitForTwoWorkers) {
  const Report r = run(options(2), seconds(400), 4);  // 16 images per 400 s
  EXPECT_EQ(r.verdict.bottleneck, Resource::kConsumer) << explain(r);
  EXPECT_EQ(r.verdict.stall_fraction, 0) << explain(r);
}

TEST_F(FakeClockVerdict, ASlowStepIsTheLimitForOneWorker) {
  const Report r = run(options(1), seconds(500), 3);  // 16 images per 500 s
  EXPECT_EQ(r.verdict.bottleneck, Resource::kConsumer) << explain(r);
}

TEST_F(FakeClockVerdict, ASlowStepIsTheLimitOverAThrottledDisk) {
  LoaderOptions o = options(2);
  // 400 images/s of disk: a batch's reads take 40 ms, which is all the consumer can wait for
  // a batch, against a 400 s step.
  o.throttle = throttle_for(400);
  o.training_images_per_s = 0.04;
  const Report r = run(o, seconds(400), 4);  // 0.04 images/s
  EXPECT_EQ(r.verdict.bottleneck, Resource::kConsumer) << explain(r);
}

// ram: one batch in flight, so reads, decodes and the step cannot overlap.

TEST_F(FakeClockVerdict, OneSlotWithSlowReadsAndAStepIsRamBound) {
  LoaderOptions o = options(2);
  o.prefetch_batches = 1;  // as a memory budget that fits one batch allows
  // Reads take 100 s each (a batch's, in flight together, 100 s; one after another 1,600 s) and
  // the step 100 s: a slot serves a batch per 200 s or more, below the disk and the consumer.
  o.throttle = "0,0,100000000";
  const Report r = run(o, seconds(100), 5);
  EXPECT_EQ(r.run.prefetch_batches, 1u);
  EXPECT_EQ(r.verdict.bottleneck, Resource::kRam) << explain(r);
}

TEST_F(FakeClockVerdict, AMemoryBudgetOfOneBatchIsRamBound) {
  LoaderOptions o = options(2);
  o.prefetch_batches = 8;
  o.memory_budget_mb = 4;  // room for one batch of 16 x 64 x 64 x 3 bytes and its reads
  o.throttle = "0,0,100000000";
  const Report r = run(o, seconds(100), 5);
  ASSERT_EQ(r.run.prefetch_batches, 1u) << "the budget should allow one batch";
  EXPECT_EQ(r.verdict.bottleneck, Resource::kRam) << explain(r);
}

// The report before any batch and during the run.

TEST_F(FakeClockVerdict, ReportBeforeAnyBatchMeasuredNothing) {
  FakeClock clock(FakeClock::Sleep::kWaits);
  Pipeline pipeline(options(1), {}, {}, clock);
  const Report r = pipeline.report();
  EXPECT_EQ(r.images, 0u);
  EXPECT_EQ(r.verdict.bottleneck, std::nullopt);
  EXPECT_EQ(r.verdict.advice.front().kind, "none");
  clock.release();
}

TEST_F(FakeClockVerdict, ReportIsAvailableDuringTheRun) {
  LoaderOptions o = options(2);
  o.throttle = throttle_for(kFastDisk);
  const Report r = run(o, seconds(0), 1);
  EXPECT_EQ(r.images, kBatch);
  EXPECT_EQ(r.stages.size(), 5u);
  EXPECT_GT(r.wall_s, 0);  // the reads' fake time
  EXPECT_TRUE(r.verdict.bottleneck.has_value());
}

}  // namespace
}  // namespace feedrate
