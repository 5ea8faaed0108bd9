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
  in.read_operations = 10'000;    // one read per image, 1,000 reads/s
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
  EXPECT_TRUE(any_contains(v.advice,
                           "decode needs 1.90 ms of CPU per image: 2 decode thread(s) "
                           "deliver at most 1,053 images/s (delivered 1,000)"))
      << v.advice[0];
  EXPECT_TRUE(any_contains(v.advice,
                           "feeding 2,500 images/s takes about 5 cores (about 2,632 images/s); "
                           "this process has 2; costs: 3 more core(s)"));
}

TEST(Judge, CpuAdviceRaisesNumWorkersToTheCores) {
  VerdictInputs in = measured();
  in.num_workers = 1;
  in.cpus = 8;
  in.stall_cpu_s = 5;
  const Verdict v = judge(in);
  EXPECT_TRUE(any_contains(v.advice, "raise num_workers from 1 to 8"));
  EXPECT_TRUE(any_contains(v.advice, "the cores available: about 4,211 images/s"));
  EXPECT_TRUE(any_contains(v.advice, "each core adds about 526 images/s: 16 cores"));
}

TEST(Judge, IoBandwidthBoundOnAnUnknownDisk) {
  VerdictInputs in = measured();
  in.stall_io_s = 7;
  in.target_images_per_s = 5000;  // x 110 KB = 550 MB/s
  const Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "io");
  // 1,000 reads/s of 110 KB: more than a seeking disk does, so the bytes are the limit.
  EXPECT_TRUE(any_contains(v.advice,
                           "reads delivered 110 MB/s (110 KB per image, 1,000 reads/s): "
                           "bandwidth-bound: this disk reads no faster (about an HDD's 200 MB/s)"))
      << v.advice[0];
  EXPECT_FALSE(any_contains(v.advice, "IOPS-bound"));
  EXPECT_FALSE(any_contains(v.advice, "storage order"));  // order does not lift bandwidth
  EXPECT_TRUE(any_contains(v.advice, "feeding 5,000 images/s needs 550 MB/s and 5,000 reads/s"));
  // Decoding on 2 cores caps any disk at 1,053 images/s: a SATA SSD reaches it.
  EXPECT_TRUE(any_contains(v.advice,
                           "a SATA SSD (500 MB/s, 50000 IOPS, 100 us latency) delivers 4,545 "
                           "images/s of these reads, about 1,053 images/s with decoding on 2 "
                           "core(s) (1.1x now); costs: a SATA SSD"));
  // 41 GB of dataset and 3 batches in flight do not fit in 24 GB.
  EXPECT_TRUE(any_contains(v.advice,
                           "the dataset (41.0 GB) does not fit in page cache under "
                           "this machine's 24.0 GB of RAM"));
  EXPECT_TRUE(any_contains(v.advice, "costs: 17.0 GB more RAM"));
}

TEST(Judge, IoBandwidthBoundOnAnEmulatedSataSsd) {
  VerdictInputs in = measured();
  in.cpus = 16;
  in.bytes_read = 4'900'000'000;  // 490 MB/s of 490 KB images: near SATA's 500 MB/s
  in.disk = io::parse_throttle("sata-ssd");
  in.stall_io_s = 7;
  const Verdict v = judge(in);
  EXPECT_TRUE(any_contains(v.advice, "bandwidth-bound: the emulated disk (500 MB/s"));
  EXPECT_TRUE(any_contains(v.advice, "reads no faster (its limit: 500 MB/s)"));
  // 16 cores decode 8,421 images/s; an NVMe SSD reads 4,898 of these a second.
  EXPECT_TRUE(any_contains(v.advice,
                           "an NVMe SSD (2400 MB/s, 400000 IOPS, 20 us latency) "
                           "delivers 4,898 images/s of these reads, about 4,898 "
                           "images/s with decoding on 16 core(s) (4.9x now); costs: an "
                           "NVMe SSD"));
}

// `feedrate bench SHARDS --throttle hdd`, shuffled: one 100 KB read per image at the HDD's seek
// rate.
VerdictInputs seeking_hdd() {
  VerdictInputs in = measured();
  in.images = 1500;
  in.decode_busy_s = 1500 * 1.9e-3;
  in.bytes_read = 150'000'000;
  in.read_operations = 1500;  // 150 reads/s
  in.disk = io::parse_throttle("hdd");
  in.shards = true;
  in.chunk_bytes = 4 << 20;
  in.stall_io_s = 9;
  in.dataset_bytes = 500'000'000;
  return in;
}

TEST(Judge, IoIopsBoundOnASeekingDisk) {
  const Verdict v = judge(seeking_hdd());
  EXPECT_EQ(v.bottleneck, "io");
  EXPECT_TRUE(any_contains(v.advice,
                           "reads delivered 15 MB/s in 150 reads/s (100 KB per read): IOPS-bound, "
                           "not bandwidth-bound"))
      << v.advice[0];
  EXPECT_TRUE(any_contains(v.advice, "does about 150 random reads/s (an HDD's seek rate)"));
  // 4 MiB chunks in storage order: 0.02 reads per image, so the HDD's 200 MB/s binds: 2,000
  // images/s of reads, and decoding on 2 cores 1,053.
  EXPECT_TRUE(any_contains(
      v.advice,
      "shuffle in blocks (--shuffle blocks) or read in storage order (--no-shuffle): reads of "
      "4.2 MB chunks (0.02 reads "
      "per image instead of 1.00) let this disk deliver 2,000 images/s, about 1,053 images/s "
      "with decoding on 2 core(s) (7.0x now); costs: no hardware, a less random order"));
  EXPECT_TRUE(any_contains(v.advice,
                           "a SATA SSD (500 MB/s, 50000 IOPS, 100 us latency) "
                           "delivers 5,000 images/s of these reads"));
  EXPECT_TRUE(any_contains(v.advice,
                           "or keep the dataset in page cache: it fits under this "
                           "machine's 24.0 GB of RAM"));
}

TEST(Judge, IopsBoundImageFolderIsToldToPackShards) {
  VerdictInputs in = seeking_hdd();
  in.shards = false;
  const Verdict v = judge(in);
  EXPECT_TRUE(any_contains(v.advice,
                           "store the images in tar shards, then shuffle in blocks (--shuffle "
                           "blocks) or read them in storage order (--no-shuffle)"));
  EXPECT_TRUE(any_contains(v.advice, "costs: a 0.5 GB copy of the dataset"));
}

TEST(Judge, ADatasetLargerThanTheContainersMemoryIsReadEveryEpoch) {
  VerdictInputs in = seeking_hdd();
  in.memory_bytes = 400'000'000;
  in.container_limit = true;
  const Verdict v = judge(in);
  EXPECT_TRUE(any_contains(v.advice,
                           "the dataset (0.5 GB) does not fit in page cache under this "
                           "container's 0.4 GB memory limit: every epoch reads the disk again at "
                           "15 MB/s"))
      << v.advice.back();
  // The dataset plus 3 batches in flight: 0.53 GB; epochs after the first then decode-bound.
  EXPECT_TRUE(any_contains(v.advice,
                           "with 0.5 GB of memory, epochs after the first would read "
                           "none, about 1,053 images/s"));
  EXPECT_FALSE(any_contains(v.advice, "or keep the dataset in page cache"));
}

TEST(Judge, CpuUnderAQuota) {
  VerdictInputs in = measured();
  in.cpus = 2;
  in.host_cpus = 16;
  in.cpu_quota_cores = 1.5;
  in.stall_cpu_s = 6;
  in.target_images_per_s = 2500;
  const Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "cpu");
  EXPECT_TRUE(any_contains(v.advice,
                           "this process may use 2 of the host's 16 cores: its cgroup "
                           "has a CPU quota of 1.50 cores"));
  EXPECT_TRUE(any_contains(v.advice, "costs: 3 more core(s): raise the CPU quota to 5 cores"));
}

TEST(Judge, AKeptUpLoaderSaysHowManyWorkersWouldDo) {
  VerdictInputs in = measured();
  in.num_workers = 8;
  in.cpus = 8;
  in.consumer_busy_s = 9.9;
  const Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "consumer");
  // 1,000 images/s x 1.9 ms x 1.25 = 2.4: 3 workers.
  EXPECT_TRUE(any_contains(v.advice,
                           "num_workers=3 would still keep up (about 1,579 images/s): "
                           "it frees 5 core(s) and the RAM of 5 worker(s)"));
}

TEST(Judge, ShardsAlreadyInBlocksAreNotToldToShuffleInBlocks) {
  VerdictInputs in = seeking_hdd();
  in.shuffle_blocks = true;
  const Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "io");
  EXPECT_TRUE(any_contains(v.advice, "IOPS-bound"));
  EXPECT_FALSE(any_contains(v.advice, "--shuffle blocks"));
}

TEST(PackingAdvice, ProjectsTheMeasuredDecodeRatio) {
  Report report;
  report.images_per_s = 900;
  report.decode_cpu_ms_per_image = 2.0;  // 2 threads: at most 1,000 images/s
  const std::string advice = packing_advice(report, 2, 20'000'000'000, {0.8, 0.99, 32});
  EXPECT_NE(advice.find("feedrate pack"), std::string::npos) << advice;
  EXPECT_NE(advice.find("0.80x the CPU (measured on 32 of them)"), std::string::npos) << advice;
  EXPECT_NE(advice.find("about 1,250 images/s instead of 1,000 (1.25x; delivered 900)"),
            std::string::npos)
      << advice;
  EXPECT_NE(advice.find("a 19.8 GB copy of the dataset (0.99x its bytes)"), std::string::npos)
      << advice;
}

TEST(Judge, RamAndH2dStalls) {
  VerdictInputs in = measured();
  in.stall_ram_s = 4;
  in.stall_io_s = 1;
  Verdict v = judge(in);
  EXPECT_EQ(v.bottleneck, "ram");
  EXPECT_TRUE(any_contains(v.advice, "only 3 batch(es) may be in flight (10 MB each)"));
  EXPECT_TRUE(any_contains(v.advice,
                           "allow 2 more batches in flight (prefetch_batches=5): about "
                           "1,053 images/s (1.1x now); costs: about 19 MB more RAM"));
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
