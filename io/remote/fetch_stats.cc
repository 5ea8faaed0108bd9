#include "io/remote/fetch_stats.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace feedrate::io {

std::uint64_t FetchStats::retries_total() const {
  return std::accumulate(retries.begin(), retries.end(), std::uint64_t{0});
}

std::size_t in_flight_band(unsigned in_flight) {
  if (in_flight <= 1) return 0;
  return std::min<std::size_t>(kInFlightBands - 1, std::bit_width(in_flight) - 1);
}

void FetchMeter::add_span(FetchStats& stats, Clock::time_point now) const {
  if (in_flight_ == 0) return;
  const double seconds = std::chrono::duration<double>(now - since_).count();
  InFlightBand& band = stats.by_in_flight[in_flight_band(in_flight_)];
  band.busy_seconds += seconds;
  band.in_flight_seconds += seconds * in_flight_;
}

void FetchMeter::set_in_flight(unsigned in_flight, Clock::time_point now) {
  add_span(stats_, now);
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

FetchStats FetchMeter::stats(Clock::time_point now) const {
  FetchStats stats = stats_;
  add_span(stats, now);
  double in_flight_seconds = 0;
  for (const InFlightBand& band : stats.by_in_flight) {
    stats.busy_seconds += band.busy_seconds;
    in_flight_seconds += band.in_flight_seconds;
  }
  if (stats.busy_seconds > 0) {
    stats.average_in_flight = in_flight_seconds / stats.busy_seconds;
    stats.bytes_per_second = static_cast<double>(stats.bytes) / stats.busy_seconds;
  }
  if (transfer_time_.count() > 0) {
    stats.bytes_per_second_per_connection =
        static_cast<double>(stats.bytes) / (static_cast<double>(transfer_time_.count()) / 1e6);
  }
  stats.first_byte_p10_ms = static_cast<double>(first_byte_.percentile(0.1).count()) / 1e6;
  stats.first_byte_p50_ms = static_cast<double>(first_byte_.percentile(0.5).count()) / 1e6;
  stats.first_byte_p99_ms = static_cast<double>(first_byte_.percentile(0.99).count()) / 1e6;
  return stats;
}

}  // namespace feedrate::io
