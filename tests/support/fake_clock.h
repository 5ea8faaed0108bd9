// A fake io::Clock for tests, as RocksDB's MockSystemClock: its time moves only when a test says
// so, or by what a sleeper asks for, never by itself, so timing logic runs deterministically and
// as fast under a sanitizer as without one. It starts at kStart (not steady_clock's epoch, which
// some code reads as "not started").
//
// Two ways to sleep (Sleep):
//   kAdvances  sleep_until(t) moves the time to t (when later) and returns at once: a throttled
//              read finishes instantly in real time, and its fake duration is the throttle's.
//   kWaits     sleep_until(t) blocks until advance() or advance_to_next_deadline() reaches t, so
//              that the test decides when time passes (a scheduler of its own); release() ends
//              every wait, and sleeps from then on advance, so that a pipeline can shut down.
// wait_until() (a timed condition wait) polls the fake time: kAdvances moves the time to the
// deadline; kWaits waits for a notification or for advance(), and counts as a sleeper while it
// waits (sleepers(), advance_to_next_deadline()).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

#include "io/clock.h"

namespace feedrate::testing {

class FakeClock final : public io::Clock {
 public:
  enum class Sleep { kAdvances, kWaits };
  static constexpr time_point kStart = time_point(std::chrono::hours(1));

  explicit FakeClock(Sleep sleep = Sleep::kAdvances) : sleep_(sleep) {}

  time_point now() const override;
  void sleep_until(time_point deadline) override;
  std::cv_status wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                            time_point deadline) override;

  // Moves the time forward by `d`, waking the sleepers whose deadline it reaches.
  void advance(duration d);
  // kWaits: moves the time to the earliest deadline a sleeper waits for, and wakes it; false
  // (the time unchanged) when nobody sleeps.
  bool advance_to_next_deadline();
  // kWaits: wakes every sleeper and makes later sleeps advance (kAdvances).
  void release();
  // The sleepers waiting now, timed waits included.
  std::size_t sleepers() const;

 private:
  void advance_to(time_point t);  // mutex_ held

  mutable std::mutex mutex_;
  std::condition_variable moved_;
  Sleep sleep_;
  time_point now_ = kStart;
  std::vector<time_point> deadlines_;  // of the sleepers and timed waits waiting (kWaits)
};

}  // namespace feedrate::testing
