// Emulates a slower disk class on a fast machine: a token bucket on bytes and one on operations,
// plus a fixed latency per operation, tell each read when it may be reported complete.
//
// Thread-safety: parse_throttle and describe are pure. A Throttle may be shared by any number of
// threads (admit() takes a mutex); it never sleeps itself, so that io_uring callers can keep
// their queue full while they wait and pread callers can sleep_until the returned time (on the
// throttle's clock, whose time it returns).
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

#include "io/clock.h"

namespace feedrate::io {

// Limits of an emulated disk. MB are 10^6 bytes, as disk makers count them; 0 means unlimited.
struct ThrottleSpec {
  double mb_per_s = 0;
  double iops = 0;
  double latency_us = 0;

  bool limited() const { return mb_per_s > 0 || iops > 0 || latency_us > 0; }
};

// Parses a disk class (io/disk_class.h lists them for doctor and plan) or explicit limits:
//   hdd       200 MB/s,    150 IOPS, 4000 us  (HDD: about 200 MB/s, 100-200 random IOPS,
//                                              seek-bound)
//   sata-ssd  500 MB/s, 50 000 IOPS,  100 us  (SATA SSD: 500 MB/s and more)
//   network  1200 MB/s,   unlimited,  500 us  (a storage server over 10 GbE: a round trip per
//                                              request)
//   nvme     2400 MB/s, 400 000 IOPS,  20 us  (NVMe SSD: 2400 MB/s and more)
//   MBPS[,IOPS[,LATENCY_US]]                   (omitted fields are unlimited)
// Throws std::invalid_argument naming `text` for anything else, and for negative, infinite or
// NaN numbers.
ThrottleSpec parse_throttle(std::string_view text);

// "200 MB/s, 150 IOPS, 4000 us latency", or "unlimited"; for statistics and logs.
std::string describe(const ThrottleSpec& spec);

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
