#include "io/remote/fetch_stats.h"

#include <algorithm>
#include <numeric>

namespace feedrate::io {

std::uint64_t FetchStats::retries_total() const {
  return std::accumulate(retries.begin(), retries.end(), std::uint64_t{0});
}

void FetchMeter::set_in_flight(unsigned in_flight, FetchClock::time_point now) {
  if (in_flight_ > 0) {
    const auto span = now - since_;
    busy_ += span;
    in_flight_ns_ += static_cast<double>(in_flight_) * static_cast<double>(span.count());
  }
  in_flight_ = in_flight;
  since_ = now;
  stats_.peak_in_flight = std::max(stats_.peak_in_flight, in_flight);
}

void FetchMeter::attempt_ended(const AttemptMetrics& metrics) {
  ++stats_.attempts;
  stats_.bytes += metrics.bytes;
  stats_.connections += static_cast<std::uint64_t>(std::max(metrics.new_connections, 0L));
  // An attempt that never got an answer (refused, reset before a byte) has no first byte.
  if (metrics.time_to_first_byte.count() > 0) first_byte_.record(metrics.time_to_first_byte);
  transfer_time_ += metrics.total;
}

FetchStats FetchMeter::stats(FetchClock::time_point now) const {
  FetchStats stats = stats_;
  auto busy = busy_;
  double in_flight_ns = in_flight_ns_;
  if (in_flight_ > 0) {
    busy += now - since_;
    in_flight_ns += static_cast<double>(in_flight_) * static_cast<double>((now - since_).count());
  }
  const double busy_ns = static_cast<double>(busy.count());
  stats.busy_seconds = busy_ns / 1e9;
  if (busy_ns > 0) {
    stats.average_in_flight = in_flight_ns / busy_ns;
    stats.bytes_per_second = static_cast<double>(stats.bytes) / stats.busy_seconds;
  }
  if (transfer_time_.count() > 0) {
    stats.bytes_per_second_per_connection =
        static_cast<double>(stats.bytes) / (static_cast<double>(transfer_time_.count()) / 1e6);
  }
  stats.first_byte_p50_ms = static_cast<double>(first_byte_.percentile(0.5).count()) / 1e6;
  stats.first_byte_p99_ms = static_cast<double>(first_byte_.percentile(0.99).count()) / 1e6;
  return stats;
}

}  // namespace feedrate::io
