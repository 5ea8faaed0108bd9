// The time every stage measures with, and the waits that are timed: a seam, as LevelDB's Env and
// RocksDB's SystemClock are, so that tests can run timing logic under a fake clock (no real
// sleeping, durations chosen by the test) and sanitizers' slowdowns do not change the outcome.
// Clock::real() is std::chrono::steady_clock with real sleeps; everything that takes a clock
// defaults to it. Time points are steady_clock's type whichever clock made them, so durations
// and traces keep their units; compare only points of the same clock.
//
// Thread-safety: every method may be called from any number of threads at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace feedrate::io {

class Clock {
 public:
  using duration = std::chrono::steady_clock::duration;
  using time_point = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;

  virtual time_point now() const = 0;
  // Returns no earlier than `deadline` in this clock's time.
  virtual void sleep_until(time_point deadline) = 0;
  void sleep_for(duration d) { sleep_until(now() + d); }
  // cv.wait_until in this clock's time, `lock` held on entry and on return: timeout once the
  // clock reached `deadline`, else no_timeout (a notification or a spurious wake; the caller
  // rechecks its condition, as with a condition variable).
  virtual std::cv_status wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                                    time_point deadline) = 0;

  // The process's steady clock, with real sleeps and waits.
  static Clock& real();
};

// Nanoseconds from `start` to `end` (0 when `end` is earlier), as the stages count busy time.
inline std::uint64_t nanoseconds_between(Clock::time_point start, Clock::time_point end) {
  return end > start
             ? static_cast<std::uint64_t>(
                   std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count())
             : 0;
}

}  // namespace feedrate::io
