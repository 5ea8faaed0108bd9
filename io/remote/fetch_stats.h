// The statistics of a RangeFetcher, and the meter that gathers them. Busy time is the time with
// at least one transfer in flight; the averages are over it, so idle gaps between a caller's
// submissions do not dilute them. Busy time and the bytes that arrived are also split by how many
// transfers were in flight (bands of 1, 2-3, 4-7, ... 1024 and more), so that a reader can see
// whether more requests in flight brought more bytes a second (a latency-bound store) or not (a
// full link). Busy time is on the fetcher's clock (io/clock.h); the attempts' own times (to the
// first byte, in all) are libcurl's, in real time whatever that clock. Thread-safety: a FetchMeter
// belongs to its fetcher's thread; FetchStats is a value.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "io/clock.h"
#include "io/latency_histogram.h"
#include "io/remote/range_transfer.h"
#include "io/remote/retry_policy.h"

namespace feedrate::io {

// The time spent with a number of transfers in flight within one band, and what arrived in it.
struct InFlightBand {
  double busy_seconds = 0;
  double in_flight_seconds = 0;  // the integral of transfers in flight: / busy_seconds, the mean
  std::uint64_t bytes = 0;       // body bytes that arrived (retried attempts' included)
};

inline constexpr std::size_t kInFlightBands = 11;  // band b: 2^b to 2^(b+1) - 1 transfers
std::size_t in_flight_band(unsigned in_flight);    // 0 for 0 or 1; the last for 1024 and more

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
  double first_byte_p10_ms = 0;  // the quick end: the round trip with little queued before it
  double first_byte_p50_ms = 0;
  double first_byte_p99_ms = 0;
  double bytes_per_second = 0;                 // bytes / busy_seconds
  double bytes_per_second_per_connection = 0;  // bytes / the summed durations of the attempts
  std::array<InFlightBand, kInFlightBands> by_in_flight{};

  std::uint64_t retries_total() const;
};

class FetchMeter {
 public:
  void submitted() { ++stats_.requests; }
  // The number of transfers in flight changes to `in_flight` at `now`.
  void set_in_flight(unsigned in_flight, Clock::time_point now);
  // `bytes` of a body arrived now (from libcurl's write callback).
  void arrived(std::size_t bytes) {
    stats_.by_in_flight[in_flight_band(in_flight_)].bytes += bytes;
  }
  void attempt_ended(const AttemptMetrics& metrics);
  // A retry of `cause`; `server_delayed` when it waits for a Retry-After.
  void retried(RetryCause cause, bool server_delayed) {
    ++stats_.retries[static_cast<std::size_t>(cause)];
    if (server_delayed) ++stats_.server_delays;
  }
  void returned(bool ok) { ++(ok ? stats_.completed : stats_.failed); }
  FetchStats stats(Clock::time_point now) const;

 private:
  // Adds the time since since_, with in_flight_ transfers, to `stats`'s band.
  void add_span(FetchStats& stats, Clock::time_point now) const;

  FetchStats stats_;  // its bands' times count up to since_; stats() sums them
  LatencyHistogram first_byte_;
  unsigned in_flight_ = 0;
  Clock::time_point since_{};
  std::chrono::microseconds transfer_time_{0};
};

}  // namespace feedrate::io
