// Emulates a slower disk class on a fast machine: a token bucket on bytes and one on operations,
// plus a fixed latency per operation, tell each read when it may be reported complete.
//
// The limits are a ThrottleSpec (io/throttle_spec.h).
//
// Thread-safety: a Throttle may be shared by any number of threads (admit() takes a mutex); it
// never sleeps itself, so that io_uring callers can keep their queue full while they wait and
// pread callers can sleep_until the returned time (on the throttle's clock, whose time it
// returns).
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>

#include "io/clock.h"
#include "io/throttle_spec.h"

namespace feedrate::io {

class Throttle {
 public:
  // Both buckets start empty at the first admit(), so that a measurement sees the configured
  // rate rather than a burst saved up while the caller was setting up. Times are `clock`'s,
  // which outlives the throttle. Throws std::invalid_argument on a negative, infinite or NaN
  // limit.
  explicit Throttle(const ThrottleSpec& spec, Clock& clock = Clock::real());

  // Charges an operation of `bytes` issued now and returns when it may complete: no earlier
  // than its share of both buckets allows, and no earlier than now + latency. Successive calls
  // return non-decreasing times. Unused tokens accumulate for at most kBurst while idle.
  Clock::time_point admit(std::size_t bytes);

  const ThrottleSpec& spec() const { return spec_; }

  // How much idle time may be saved up as tokens: a short burst, as a disk's cache allows.
  static constexpr std::chrono::milliseconds kBurst{50};

 private:
  const ThrottleSpec spec_;
  Clock& clock_;
  const double ns_per_byte_;       // 0 when unlimited
  const Clock::duration per_op_;   // zero when unlimited
  const Clock::duration latency_;  // zero when none
  std::mutex mutex_;
  // Token buckets kept as the time at which everything charged so far has been paid for (the
  // generic cell rate algorithm); a bucket is full when that time is kBurst or more in the past.
  // Both are Clock::time_point::min() until the first admit().
  Clock::time_point bytes_paid_until_ = Clock::time_point::min();
  Clock::time_point ops_paid_until_ = Clock::time_point::min();
};

}  // namespace feedrate::io
