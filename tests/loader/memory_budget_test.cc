// Memory: the peak RSS a Loader adds stays within its memory budget plus a stated overhead, for
// several num_workers, prefetch depths and batch sizes; a budget too small for one batch is an
// error at start; without a budget the default is a quarter of the process's memory limit.
// Each run happens in a fresh child process (loader_memory_probe), which measures the kernel's
// high-water mark of its RSS from just before the Loader is built: nothing this test process
// holds or has freed can blur the figure.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "loader/host/system_info.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

// What a Loader may hold beyond its budget (which counts the batch slots: images and encoded
// bytes), on ImageNet-like 500x375 images: the decoders' rows and libjpeg state, TBB and
// io_uring set-up and malloc's per-thread arenas. Measured: 2.0 to 7.4 MB beyond the slots over
// the cases below (the test prints them); the bound leaves room for allocator variation.
constexpr double kOverheadMb = 16;
constexpr double kPerWorkerMb = 4;

struct Probe {
  std::size_t prefetch_batches = 0;  // after the budget
  double added_mb = 0;               // peak RSS minus RSS before the Loader
  std::string error;
};

Probe run_probe(const std::string& source, int workers, std::size_t prefetch_batches,
                std::size_t batch, int size, std::size_t budget_mb) {
  const std::string command = std::string(FEEDRATE_MEMORY_PROBE) + " '" + source + "' " +
                              std::to_string(workers) + " " + std::to_string(prefetch_batches) +
                              " " + std::to_string(batch) + " " + std::to_string(size) + " " +
                              std::to_string(budget_mb) + " 2";
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  char line[512] = {};
  Probe probe;
  if (!pipe || std::fgets(line, sizeof(line), pipe.get()) == nullptr) {
    probe.error = "no output from " + command;
    return probe;
  }
  long baseline = 0, peak = 0;
  if (std::sscanf(line, "prefetch_batches=%zu baseline_kb=%ld peak_kb=%ld", &probe.prefetch_batches,
                  &baseline, &peak) != 3) {
    probe.error = line;
    return probe;
  }
  probe.added_mb = static_cast<double>(peak - baseline) * 1024 / 1e6;
  return probe;
}

class MemoryBudgetTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    datagen::DatasetSpec spec;
    spec.out = dir_->path() / "images";
    spec.count = 160;
    spec.classes = 4;
    spec.threads = 2;
    const datagen::DatasetSummary summary = datagen::make_dataset(spec);
    encoded_bytes_per_image_ = static_cast<double>(summary.jpeg_bytes) / summary.images;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string source() { return (dir_->path() / "images").string(); }
  // What the loader counts per slot (pipeline.cc apply_memory_budget).
  static double slot_mb(std::size_t batch, int size) {
    return static_cast<double>(batch) * (3.0 * size * size + 1.25 * encoded_bytes_per_image_) / 1e6;
  }

  static testing::TempDir* dir_;
  static double encoded_bytes_per_image_;
};

testing::TempDir* MemoryBudgetTest::dir_ = nullptr;
double MemoryBudgetTest::encoded_bytes_per_image_ = 0;

TEST_F(MemoryBudgetTest, PeakRssStaysWithinTheBudgetPlusTheOverhead) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer runtimes keep memory of their own (shadow, quarantine)";
#endif
  struct Case {
    int workers;
    std::size_t prefetch_batches, batch;
    std::size_t budget_mb;
  };
  const Case cases[] = {
      {1, 2, 16, 40}, {2, 8, 16, 40}, {4, 8, 16, 40}, {1, 8, 64, 40},
      {2, 3, 64, 40}, {4, 8, 64, 40}, {2, 16, 8, 24}, {3, 4, 32, 120},
  };
  for (const Case& c : cases) {
    const Probe p = run_probe(source(), c.workers, c.prefetch_batches, c.batch, 224, c.budget_mb);
    SCOPED_TRACE("num_workers " + std::to_string(c.workers) + ", prefetch_batches " +
                 std::to_string(c.prefetch_batches) + ", batch " + std::to_string(c.batch) +
                 ", budget " + std::to_string(c.budget_mb) + " MB");
    ASSERT_TRUE(p.error.empty()) << p.error;
    const double slots_mb = static_cast<double>(p.prefetch_batches) * slot_mb(c.batch, 224);
    std::printf(
        "workers %d prefetch_batches %2zu batch %2zu budget %3zu MB: %zu slots (%.1f MB), peak RSS "
        "added %.1f MB, beyond the slots %.1f MB\n",
        c.workers, c.prefetch_batches, c.batch, c.budget_mb, p.prefetch_batches, slots_mb,
        p.added_mb, p.added_mb - slots_mb);
    EXPECT_LE(slots_mb, static_cast<double>(c.budget_mb));
    EXPECT_LE(p.added_mb,
              static_cast<double>(c.budget_mb) + kOverheadMb + kPerWorkerMb * c.workers);
  }
}

TEST_F(MemoryBudgetTest, ABudgetTooSmallForOneBatchIsAnErrorAtStart) {
  LoaderOptions o;
  o.source = source();
  o.batch_size = 64;  // about 15 MB a batch
  o.memory_budget_mb = 5;
  o.rank = 0;
  o.world_size = 1;
  try {
    Loader loader(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("memory_budget_mb: 5 MB is too small for one batch"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(MemoryBudgetTest, TheDefaultBudgetIsAQuarterOfTheMemoryLimit) {
  const double limit_mb = static_cast<double>(memory_limit_bytes()) / 1e6;
  ASSERT_GT(limit_mb, 0);
  LoaderOptions o;
  o.source = source();
  o.rank = 0;
  o.world_size = 1;
  // A batch bigger than a quarter of the limit: refused at start, naming the limit.
  o.batch_size = 65536;
  o.transform.size = 4096;
  try {
    Loader loader(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a quarter of this process's memory limit"),
              std::string::npos)
        << e.what();
  }
  // Many large batches: the slots are cut to what a quarter of the limit holds (the slots are
  // allocated but never touched, so this costs address space, not memory).
  o.batch_size = 4096;
  o.transform.size = 224;
  o.prefetch_batches = 1024;
  const double slot = slot_mb(o.batch_size, o.transform.size);
  ASSERT_GT(1024 * slot, limit_mb / 4) << "this machine's memory limit is too large for the test";
  Loader loader(o);
  const auto slots = static_cast<double>(loader.options().prefetch_batches);
  EXPECT_LE(slots * slot, limit_mb / 4);
  EXPECT_GT((slots + 1) * slot, limit_mb / 4);
}

}  // namespace
}  // namespace feedrate
