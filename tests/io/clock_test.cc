// Tests for the clock seam (io/clock.h) and its fake (tests/support/fake_clock.h): the real
// clock is steady and its sleeps wait; a fake clock moves only when told or by what a sleeper
// asks for, and sleepers that wait are woken by the moves. What times itself on the clock it is
// given is tested on the fake one beside its own tests (the throttle and the readers in
// throttle_test.cc and reader_throttle_test.cc, the range fetcher in remote/).

#include "io/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/support/fake_clock.h"

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

// A timed wait counts as a sleeper while it waits: a test can tell that a thread waits on the
// clock before it moves the time.
TEST(FakeClockTest, ATimedWaitIsASleeperUntilItsDeadline) {
  FakeClock clock(FakeClock::Sleep::kWaits);
  std::mutex mutex;
  std::condition_variable cv;
  std::thread waiter([&] {
    std::unique_lock lock(mutex);
    while (clock.wait_until(cv, lock, FakeClock::kStart + seconds(4)) ==
           std::cv_status::no_timeout) {
    }
  });
  while (clock.sleepers() < 1) std::this_thread::yield();
  clock.advance(seconds(4));
  waiter.join();
  EXPECT_EQ(clock.sleepers(), 0u);
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

}  // namespace
}  // namespace feedrate::io
