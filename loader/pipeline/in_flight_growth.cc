#include "loader/pipeline/in_flight_growth.h"

#include <algorithm>
#include <chrono>

namespace feedrate {

InFlightGrowth::InFlightGrowth(unsigned requests, std::uint64_t window_bytes)
    : asked_(std::clamp(requests, 1U, kMostRequests)),
      requests_(asked_),
      ceiling_(std::min(2 * requests_, kMostRequests)),
      window_bytes_(window_bytes) {}

void InFlightGrowth::restarted(std::uint64_t bytes) {
  if (decided_) return;
  from_bytes_ = bytes;
  since_.reset();
}

double InFlightGrowth::allowed_on_average(double busy_seconds) const {
  if (requests_ == asked_) return requests_;
  if (busy_seconds <= grown_at_s_) return asked_;
  return (asked_ * grown_at_s_ + requests_ * (busy_seconds - grown_at_s_)) / busy_seconds;
}

void InFlightGrowth::observe(const io::FetchStats& stats, bool queued, io::Clock::duration waited,
                             io::Clock::time_point now) {
  const auto bytes = static_cast<double>(stats.bytes - std::min(from_bytes_, stats.bytes));
  const auto window = static_cast<double>(window_bytes_);
  if (decided_ || bytes < window) return;
  if (!since_) since_.emplace(waited, now);
  if (bytes < kWindows * window) return;
  decided_ = true;
  const std::chrono::duration<double> span = now - since_->second;
  const std::chrono::duration<double> starved = waited - since_->first;
  if (span.count() <= 0 || starved.count() < kStarved * span.count() || queued ||
      stats.average_in_flight < kBusy * requests_) {
    return;
  }
  requests_ = ceiling_;
  grown_at_s_ = stats.busy_seconds;
}

}  // namespace feedrate
