#include "io/clock.h"

#include <thread>

namespace feedrate::io {
namespace {

class SteadyClock final : public Clock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
  void sleep_until(time_point deadline) override { std::this_thread::sleep_until(deadline); }
  std::cv_status wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                            time_point deadline) override {
    return cv.wait_until(lock, deadline);
  }
};

}  // namespace

Clock& Clock::real() {
  static SteadyClock clock;
  return clock;
}

}  // namespace feedrate::io
