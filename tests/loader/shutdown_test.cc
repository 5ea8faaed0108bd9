// Shutdown: a loader destroyed in the middle of an epoch, with reads in flight (a reader test
// double that holds every read for a while), decodes running and batches held by the consumer,
// returns promptly and leaves the held batches readable; so does one unwound by an exception the
// consumer throws mid-epoch. "Promptly" is a hang check with a generous bound, not a timing
// measurement. Under the asan preset LeakSanitizer and AddressSanitizer check that nothing
// leaks and nothing freed is touched.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <set>
#include <stdexcept>
#include <thread>

#include "feedrate/loader.h"
#include "io/reader.h"
#include "loader/pipeline/pipeline.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using namespace std::chrono_literals;

// Far above what any of these shutdowns needs (a read of at most 1 s to finish, decodes of a few
// small images), even on a loaded machine under a sanitizer.
constexpr auto kHangLimit = 10s;

// Runs `work` on its own thread. A hung shutdown cannot be recovered from, so when `work` has
// not returned within `limit` the test binary aborts with a message instead of hanging ctest.
void expect_returns_within(std::chrono::seconds limit, const char* what,
                           const std::function<void()>& work) {
  std::packaged_task<void()> task(work);
  std::future<void> done = task.get_future();
  std::thread thread(std::move(task));
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: %s did not return within %lld s\n", what,
                 static_cast<long long>(limit.count()));
    std::abort();
  }
  thread.join();
  done.get();  // rethrows what `work` threw
}

// A reader that holds every batch of reads for `delay` before doing them, and says when one is
// in progress, so that a test can destroy the pipeline while the I/O thread is inside read().
class SlowReader final : public io::Reader {
 public:
  SlowReader(const io::ReaderOptions& options, std::chrono::milliseconds delay,
             std::atomic<int>* in_read)
      : Reader(options),
        real_(Reader::create(options, nullptr)),
        delay_(delay),
        in_read_(in_read) {}

  void read(std::span<io::ReadRequest> requests) override {
    ++*in_read_;
    std::this_thread::sleep_for(delay_);
    real_->read(requests);
    --*in_read_;
  }
  io::Backend backend() const override { return real_->backend(); }

 private:
  std::unique_ptr<io::Reader> real_;
  std::chrono::milliseconds delay_;
  std::atomic<int>* in_read_;
};

class ShutdownTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    testing::make_image_folder(dir_->path(), kImages, 3);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static LoaderOptions options(int workers) {
    LoaderOptions o;
    o.source = dir_->path().string();
    o.batch_size = 8;
    o.num_workers = workers;
    o.prefetch_batches = 3;
    o.transform.size = 64;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }
  Pipeline::ReaderFactory slow(std::chrono::milliseconds delay) {
    return [this, delay](const io::ReaderOptions& options, std::string*) {
      return std::make_unique<SlowReader>(options, delay, &in_read_);
    };
  }
  // Waits (bounded) until the I/O thread is inside a read.
  void wait_for_read_in_flight() {
    const auto deadline = std::chrono::steady_clock::now() + kHangLimit;
    while (in_read_ == 0) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no read ever started";
      std::this_thread::sleep_for(1ms);
    }
  }

  static constexpr int kImages = 40;
  static testing::TempDir* dir_;
  std::atomic<int> in_read_{0};
};

testing::TempDir* ShutdownTest::dir_ = nullptr;

// Every byte of a held batch, read after its loader is gone (AddressSanitizer flags freed memory).
std::uint64_t checksum(const Batch& batch) {
  std::uint64_t sum = 0;
  for (std::uint8_t v : batch.images_u8()) sum = sum * 31 + v;
  for (std::int32_t label : batch.labels()) sum = sum * 31 + static_cast<std::uint64_t>(label);
  return sum;
}

TEST_F(ShutdownTest, DestroyedWhileAReadIsInFlightWithBatchesHeld) {
  for (const int workers : {0, 1, 3}) {
    SCOPED_TRACE("num_workers " + std::to_string(workers));
    // Each read takes 1 s: when the consumer has its second batch, the third one's read is
    // still in flight (decoding a batch, even under a sanitizer, takes far less), and the I/O
    // thread, out of free slots after it, reads nothing more.
    auto pipeline = std::make_unique<Pipeline>(options(workers), slow(1000ms));
    std::optional<Batch> first = pipeline->next();
    std::optional<Batch> second = pipeline->next();
    ASSERT_TRUE(first && second);
    const std::uint64_t before = checksum(*first) ^ checksum(*second);
    wait_for_read_in_flight();
    expect_returns_within(kHangLimit, "~Pipeline with a read in flight", [&] { pipeline.reset(); });
    EXPECT_EQ(in_read_, 0);
    EXPECT_EQ(checksum(*first) ^ checksum(*second), before);
    EXPECT_EQ(first->size(), 8u);
  }
}

TEST_F(ShutdownTest, DestroyedWhileDecodesRun) {
  // Destroyed at different moments after the first batch: decodes of the batches behind it are
  // queued, running or done. The held batch must keep exactly the pixels and labels of the first
  // batch of an epoch that ran to its end: destruction neither reuses nor frees its slot.
  for (const int workers : {1, 2, 4}) {
    LoaderOptions o = options(workers);
    o.transform.size = 160;  // upscaling costs decode time, so decodes are still running
    std::uint64_t undisturbed = 0;
    {
      Loader loader(o);
      loader.start_epoch(0);
      std::optional<Batch> first = loader.next();
      ASSERT_TRUE(first.has_value());
      undisturbed = checksum(*first);
      while (loader.next()) {
      }
    }
    for (const auto delay : {0ms, 1ms, 5ms, 20ms}) {
      SCOPED_TRACE("num_workers " + std::to_string(workers) + ", destroyed after " +
                   std::to_string(delay.count()) + " ms");
      std::optional<Batch> held;
      std::uint64_t on_delivery = 0;
      expect_returns_within(kHangLimit, "a Loader destroyed mid-epoch", [&] {
        Loader loader(o);
        loader.start_epoch(0);
        held = loader.next();
        if (held) on_delivery = checksum(*held);
        std::this_thread::sleep_for(delay);
      });
      ASSERT_TRUE(held.has_value());
      EXPECT_EQ(held->images_u8().size(), 8u * 160 * 160 * 3);
      EXPECT_EQ(on_delivery, undisturbed);
      EXPECT_EQ(checksum(*held), undisturbed) << "the held batch changed when its loader went";
    }
  }
}

TEST_F(ShutdownTest, ConsumerExceptionMidEpochUnwindsTheLoader) {
  for (const int workers : {0, 2}) {
    SCOPED_TRACE("num_workers " + std::to_string(workers));
    std::size_t seen = 0;
    expect_returns_within(kHangLimit, "unwinding a Loader", [&] {
      try {
        Pipeline pipeline(options(workers), slow(20ms));
        pipeline.start_epoch(0);
        while (std::optional<Batch> batch = pipeline.next()) {
          seen += batch->size();
          if (seen == 16) throw std::runtime_error("the training step failed");
        }
        FAIL() << "the consumer's exception was lost";
      } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "the training step failed");
      }
    });
    EXPECT_EQ(seen, 16u);
    // Nothing of the unwound loader lingers: a new one delivers every sample exactly once.
    Loader loader(options(workers));
    std::multiset<std::uint32_t> indices;
    while (std::optional<Batch> batch = loader.next()) {
      indices.insert(batch->indices().begin(), batch->indices().end());
    }
    EXPECT_EQ(indices.size(), static_cast<std::size_t>(kImages));
    EXPECT_EQ(std::set<std::uint32_t>(indices.begin(), indices.end()).size(),
              static_cast<std::size_t>(kImages));
  }
}

TEST_F(ShutdownTest, RestartingAnEpochWithAReadInFlightDeliversTheNewEpochOnce) {
  Pipeline pipeline(options(2), slow(100ms));
  pipeline.start_epoch(0);
  ASSERT_TRUE(pipeline.next().has_value());
  wait_for_read_in_flight();
  expect_returns_within(kHangLimit, "start_epoch with a read in flight",
                        [&] { pipeline.start_epoch(1); });
  std::multiset<std::uint32_t> indices;
  while (std::optional<Batch> batch = pipeline.next()) {
    EXPECT_EQ(batch->epoch(), 1u);
    indices.insert(batch->indices().begin(), batch->indices().end());
  }
  EXPECT_EQ(indices.size(), static_cast<std::size_t>(kImages));
  EXPECT_EQ(std::set<std::uint32_t>(indices.begin(), indices.end()).size(),
            static_cast<std::size_t>(kImages));
}

TEST_F(ShutdownTest, DestroyedBeforeTheFirstBatchOrBeforeAnyEpoch) {
  expect_returns_within(kHangLimit, "destroying loaders that never delivered", [&] {
    { Loader never_started(options(2)); }
    for (int i = 0; i < 20; ++i) {
      Pipeline pipeline(options(1 + i % 3), slow(i % 2 == 0 ? 0ms : 30ms));
      pipeline.start_epoch(static_cast<std::uint64_t>(i));
    }
  });
}

}  // namespace
}  // namespace feedrate
