// Times a Reader's operations: when each may be reported complete under the emulated disk class
// (Throttle), the latency histogram behind the p50/p99 figures, and how many reads are in
// flight (time-weighted average over the time spent in read(), and peak).
//
// Thread-safety: one thread at a time, like the Reader that owns it.
#pragma once

#include <chrono>
#include <cstddef>

#include "io/clock.h"
#include "io/latency_histogram.h"
#include "io/reader.h"
#include "io/throttle.h"

namespace feedrate::io {

class ReadMeter {
 public:
  // One operation: when it was submitted and when it may be reported complete.
  struct Op {
    Clock::time_point started;
    Clock::time_point due;
  };

  // Times with `clock`, which outlives the meter. Throws std::invalid_argument on an invalid
  // throttle (see Throttle).
  ReadMeter(const ThrottleSpec& throttle, Clock& clock);

  Clock& clock() const { return clock_; }

  void begin_batch();
  // An operation that transfers `bytes` from the device is submitted now.
  Op start(std::size_t bytes);
  // `op` is reported complete now; the caller has waited for op.due.
  void finish(const Op& op);
  // Writes the latency percentiles and in-flight figures into `stats`.
  void end_batch(ReadStats& stats);

 private:
  void count_in_flight(Clock::time_point now, int change);

  Clock& clock_;
  Throttle throttle_;
  const bool limited_;  // false: no need to lock the throttle for every operation
  LatencyHistogram latency_;
  unsigned in_flight_ = 0;
  unsigned peak_in_flight_ = 0;
  Clock::time_point last_change_;
  Clock::time_point batch_start_;
  double in_flight_ns_ = 0;  // integral of reads in flight over time, in read() calls
  double busy_ns_ = 0;       // time spent in read() calls
};

}  // namespace feedrate::io
