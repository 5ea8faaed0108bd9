#include "loader/pipeline/in_flight_growth.h"

#include <algorithm>
#include <chrono>

namespace feedrate {

InFlightGrowth::InFlightGrowth(unsigned requests, std::uint64_t window_bytes)
    : requests_(std::clamp(requests, 1U, kMostRequests)),
      ceiling_(std::min(2 * requests_, kMostRequests)),
      window_bytes_(window_bytes) {}

void InFlightGrowth::observe(const io::FetchStats& stats, bool queued,
                             io::FetchClock::duration waited, io::FetchClock::time_point now) {
  const auto bytes = static_cast<double>(stats.bytes);
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
}

}  // namespace feedrate
