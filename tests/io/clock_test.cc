// Tests for the clock seam (io/clock.h) and its fake (tests/support/fake_clock.h): the real
// clock is steady and its sleeps wait; a fake clock moves only when told or by what a sleeper
// asks for, and sleepers that wait are woken by the moves; the throttle and both reader
// backends time themselves on the clock they are given, so that a throttled read takes exactly
// its fake duration and no real time.

#include "io/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/file.h"
#include "io/reader.h"
#include "io/throttle.h"
#include "tests/io/read_test_util.h"
#include "tests/support/fake_clock.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

using feedrate::testing::FakeClock;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RealClockTest, IsSteadyAndSleepsForReal) {
  Clock& clock = Clock::real();
  const Clock::time_point start = clock.now();
  clock.sleep_for(milliseconds(5));
  EXPECT_GE(clock.now() - start, milliseconds(5));
  EXPECT_GE(std::chrono::steady_clock::now(), clock.now() - milliseconds(1));
}

TEST(RealClockTest, TimedWaitEndsAtItsDeadline) {
  std::mutex mutex;
  std::condition_variable cv;
  std::unique_lock lock(mutex);
  Clock& clock = Clock::real();
  const Clock::time_point deadline = clock.now() + milliseconds(5);
  while (clock.wait_until(cv, lock, deadline) == std::cv_status::no_timeout) {
  }
  EXPECT_GE(clock.now(), deadline);
}

TEST(NanosecondsBetweenTest, CountsForwardOnly) {
  const Clock::time_point t = FakeClock::kStart;
  EXPECT_EQ(nanoseconds_between(t, t + milliseconds(3)), 3'000'000u);
  EXPECT_EQ(nanoseconds_between(t + milliseconds(3), t), 0u);
}

TEST(FakeClockTest, MovesOnlyWhenTold) {
  FakeClock clock;
  EXPECT_EQ(clock.now(), FakeClock::kStart);
  EXPECT_EQ(clock.now(), FakeClock::kStart);
  clock.advance(seconds(7));
  EXPECT_EQ(clock.now(), FakeClock::kStart + seconds(7));
}

TEST(FakeClockTest, ASleepAdvancesByWhatItAsksFor) {
  FakeClock clock;
  clock.sleep_for(std::chrono::hours(2));
  EXPECT_EQ(clock.now(), FakeClock::kStart + std::chrono::hours(2));
  clock.sleep_until(FakeClock::kStart);  // in the past: the time stays
  EXPECT_EQ(clock.now(), FakeClock::kStart + std::chrono::hours(2));
}

TEST(FakeClockTest, ATimedWaitAdvancesToItsDeadline) {
  FakeClock clock;
  std::mutex mutex;
  std::condition_variable cv;
  std::unique_lock lock(mutex);
  EXPECT_EQ(clock.wait_until(cv, lock, FakeClock::kStart + seconds(3)), std::cv_status::timeout);
  EXPECT_EQ(clock.now(), FakeClock::kStart + seconds(3));
}

TEST(FakeClockTest, WaitingSleepersWakeInDeadlineOrder) {
  FakeClock clock(FakeClock::Sleep::kWaits);
  std::vector<int> woken;
  std::mutex mutex;
  const auto sleeper = [&](int id, seconds at) {
    return std::thread([&, id, at] {
      clock.sleep_until(FakeClock::kStart + at);
      std::lock_guard lock(mutex);
      woken.push_back(id);
    });
  };
  std::thread late = sleeper(2, seconds(20));
  std::thread early = sleeper(1, seconds(10));
  while (clock.sleepers() < 2) std::this_thread::yield();
  EXPECT_EQ(clock.now(), FakeClock::kStart);  // nobody moved it

  ASSERT_TRUE(clock.advance_to_next_deadline());
  EXPECT_EQ(clock.now(), FakeClock::kStart + seconds(10));
  early.join();
  ASSERT_TRUE(clock.advance_to_next_deadline());
  EXPECT_EQ(clock.now(), FakeClock::kStart + seconds(20));
  late.join();
  EXPECT_EQ(woken, (std::vector<int>{1, 2}));
  EXPECT_FALSE(clock.advance_to_next_deadline());
  EXPECT_EQ(clock.sleepers(), 0u);
}

TEST(FakeClockTest, AdvanceWakesTheSleepersItPasses) {
  FakeClock clock(FakeClock::Sleep::kWaits);
  std::thread sleeper([&] { clock.sleep_for(seconds(5)); });
  while (clock.sleepers() < 1) std::this_thread::yield();
  clock.advance(seconds(8));
  sleeper.join();
  EXPECT_EQ(clock.now(), FakeClock::kStart + seconds(8));
}

TEST(FakeClockTest, ReleaseEndsEveryWaitAndLaterSleepsAdvance) {
  FakeClock clock(FakeClock::Sleep::kWaits);
  std::thread sleeper([&] { clock.sleep_for(seconds(5)); });
  while (clock.sleepers() < 1) std::this_thread::yield();
  clock.release();
  sleeper.join();
  EXPECT_EQ(clock.now(), FakeClock::kStart + seconds(5));
  clock.sleep_for(seconds(1));
  EXPECT_EQ(clock.now(), FakeClock::kStart + seconds(6));
}

// The throttle's due times on a fake clock are exact: the limits' arithmetic, not a machine's.

TEST(ThrottleOnAFakeClockTest, BytesAreDueAtTheByteRate) {
  FakeClock clock;
  Throttle throttle({100, 0, 0}, clock);  // 100 MB/s: 10 ms a MB
  EXPECT_EQ(throttle.admit(1'000'000), FakeClock::kStart + milliseconds(10));
  EXPECT_EQ(throttle.admit(1'000'000), FakeClock::kStart + milliseconds(20));
  // Idle for a second: the bucket saves up kBurst (50 ms) at most.
  clock.advance(seconds(1));
  const Clock::time_point now = clock.now();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(throttle.admit(1'000'000), now);
  EXPECT_EQ(throttle.admit(1'000'000), now + milliseconds(10));
}

TEST(ThrottleOnAFakeClockTest, OperationsAndLatencyAreDueExactly) {
  FakeClock clock;
  Throttle throttle({0, 1000, 250}, clock);  // 1 ms an operation, 250 us each
  EXPECT_EQ(throttle.admit(1), FakeClock::kStart + milliseconds(1));
  EXPECT_EQ(throttle.admit(1), FakeClock::kStart + milliseconds(2));
  clock.advance(milliseconds(100));
  // 50 ms saved up: the next operations are due after their latency only.
  EXPECT_EQ(throttle.admit(1), clock.now() + std::chrono::microseconds(250));
}

class ReaderOnAFakeClockTest : public ::testing::TestWithParam<Backend> {};

TEST_P(ReaderOnAFakeClockTest, AThrottledReadTakesItsFakeDuration) {
  feedrate::testing::TempDir dir;
  constexpr std::size_t kSize = 1 << 20;
  const test_support::Bytes content = test_support::random_bytes(kSize, 5);
  feedrate::testing::write_file(dir / "data.bin", content);
  std::error_code error;
  const File file = File::open(dir / "data.bin", error);
  ASSERT_FALSE(error) << error.message();

  FakeClock clock;
  ReaderOptions options;
  options.throttle = {0.001, 0, 0};  // 1,000 bytes/s: 1 MiB takes 1,048.576 s
  options.clock = &clock;
  std::string skip;
  std::unique_ptr<Reader> reader = test_support::make_reader(GetParam(), options, skip);
  if (reader == nullptr) GTEST_SKIP() << skip;
  std::vector<std::byte> buffer(kSize);
  std::vector<ReadRequest> requests{test_support::make_request(file.fd(), 0, buffer)};
  const auto real_start = std::chrono::steady_clock::now();
  reader->read(requests);
  ASSERT_FALSE(requests[0].error) << requests[0].error.message();
  EXPECT_TRUE(test_support::holds_bytes(requests[0], content));
  // The fake time moved by the throttle's delay (the first admit starts the bucket empty).
  EXPECT_EQ(clock.now(), FakeClock::kStart + milliseconds(1'048'576));
  // Real time: far less than the 1,000 s the emulated disk needs.
  EXPECT_LT(std::chrono::steady_clock::now() - real_start, seconds(100));
  EXPECT_NEAR(reader->stats().latency_p50_us, 1.0486e9, 0.07 * 1.0486e9);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReaderOnAFakeClockTest,
                         ::testing::Values(Backend::kIoUring, Backend::kPread),
                         [](const auto& info) { return std::string(backend_name(info.param)); });

}  // namespace
}  // namespace feedrate::io
