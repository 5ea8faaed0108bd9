#include "tests/support/fake_clock.h"

#include <algorithm>

namespace feedrate::testing {

FakeClock::time_point FakeClock::now() const {
  std::lock_guard lock(mutex_);
  return now_;
}

void FakeClock::advance_to(time_point t) {
  if (t <= now_) return;
  now_ = t;
  moved_.notify_all();
}

void FakeClock::sleep_until(time_point deadline) {
  std::unique_lock lock(mutex_);
  if (sleep_ == Sleep::kAdvances) {
    advance_to(deadline);
    return;
  }
  deadlines_.push_back(deadline);
  moved_.wait(lock, [&] { return now_ >= deadline || sleep_ == Sleep::kAdvances; });
  advance_to(deadline);  // after release(): the sleep advances, as later ones do
  deadlines_.erase(std::find(deadlines_.begin(), deadlines_.end(), deadline));
}

std::cv_status FakeClock::wait_until(std::condition_variable& cv,
                                     std::unique_lock<std::mutex>& lock, time_point deadline) {
  {
    std::lock_guard guard(mutex_);
    if (sleep_ == Sleep::kAdvances) advance_to(deadline);
    if (now_ >= deadline) return std::cv_status::timeout;
    deadlines_.push_back(deadline);
  }
  // The caller's lock is released while it waits; the fake time is polled, as a notification
  // from advance() would have to take the caller's mutex.
  cv.wait_for(lock, std::chrono::milliseconds(1));
  std::lock_guard guard(mutex_);
  deadlines_.erase(std::find(deadlines_.begin(), deadlines_.end(), deadline));
  return now_ >= deadline ? std::cv_status::timeout : std::cv_status::no_timeout;
}

void FakeClock::advance(duration d) {
  std::lock_guard lock(mutex_);
  advance_to(now_ + d);
}

bool FakeClock::advance_to_next_deadline() {
  std::lock_guard lock(mutex_);
  time_point next = time_point::max();
  for (const time_point deadline : deadlines_) {
    if (deadline > now_) next = std::min(next, deadline);
  }
  if (next == time_point::max()) return false;
  advance_to(next);
  return true;
}

void FakeClock::release() {
  std::lock_guard lock(mutex_);
  sleep_ = Sleep::kAdvances;
  moved_.notify_all();
}

std::size_t FakeClock::sleepers() const {
  std::lock_guard lock(mutex_);
  return deadlines_.size();
}

}  // namespace feedrate::testing
