// The statistics of a RangeFetcher, and the meter that gathers them. Busy time is the time with
// at least one transfer in flight; the averages are over it, so idle gaps between a caller's
// submissions do not dilute them. Thread-safety: a FetchMeter belongs to its fetcher's thread;
// FetchStats is a value.
#pragma once

#include <chrono>
#include <cstdint>

#include "io/latency_histogram.h"
#include "io/remote/range_transfer.h"
#include "io/remote/retry_policy.h"

namespace feedrate::io {

struct FetchStats {
  std::uint64_t requests = 0;       // submitted
  std::uint64_t completed = 0;      // returned filled
  std::uint64_t failed = 0;         // returned with an error
  std::uint64_t bytes = 0;          // delivered into destinations (each byte once)
  std::uint64_t attempts = 0;       // HTTP requests made, retries included
  RetryCounts retries{};            // by RetryCause
  std::uint64_t server_delays = 0;  // retries that waited for the answer's Retry-After
  std::uint64_t connections = 0;    // connections opened; attempts - connections reused one
  unsigned peak_in_flight = 0;
  double average_in_flight = 0;  // over busy time
  double busy_seconds = 0;
  // Time to first byte per answered attempt (libcurl's CURLINFO_STARTTRANSFER_TIME_T, connection
  // set-up included), from a log-bucket histogram (about 6% resolution).
  double first_byte_p50_ms = 0;
  double first_byte_p99_ms = 0;
  double bytes_per_second = 0;                 // bytes / busy_seconds
  double bytes_per_second_per_connection = 0;  // bytes / the summed durations of the attempts

  std::uint64_t retries_total() const;
};

class FetchMeter {
 public:
  void submitted() { ++stats_.requests; }
  // The number of transfers in flight changes to `in_flight` at `now`.
  void set_in_flight(unsigned in_flight, FetchClock::time_point now);
  void attempt_ended(const AttemptMetrics& metrics);
  // A retry of `cause`; `server_delayed` when it waits for a Retry-After.
  void retried(RetryCause cause, bool server_delayed) {
    ++stats_.retries[static_cast<std::size_t>(cause)];
    if (server_delayed) ++stats_.server_delays;
  }
  void returned(bool ok) { ++(ok ? stats_.completed : stats_.failed); }
  FetchStats stats(FetchClock::time_point now) const;

 private:
  FetchStats stats_;
  LatencyHistogram first_byte_;
  unsigned in_flight_ = 0;
  FetchClock::time_point since_{};
  std::chrono::nanoseconds busy_{0};
  double in_flight_ns_ = 0;  // integral of in-flight transfers over time
  std::chrono::microseconds transfer_time_{0};
};

}  // namespace feedrate::io
