#include "loader/pipeline/group_sizer.h"

#include <algorithm>

namespace feedrate {

GroupSizer::GroupSizer(unsigned max_in_flight, std::uint64_t window_bytes)
    : window_bytes_(window_bytes),
      requests_(std::max(max_in_flight, 1U)),
      share_(window_bytes / requests_),
      most_(share_) {}

bool GroupSizer::queued(const io::FetchStats& stats) {
  if (stats.attempts == 0 || stats.bytes_per_second_per_connection <= 0) return false;
  // bytes_per_second_per_connection is bytes over the attempts' summed durations.
  const double get_ms = static_cast<double>(stats.bytes) / stats.bytes_per_second_per_connection /
                        static_cast<double>(stats.attempts) * 1e3;
  const double queued_ms = get_ms - stats.first_byte_p50_ms;
  return queued_ms > kQueued * stats.first_byte_p50_ms && queued_ms > kQueuedMs;
}

void GroupSizer::requests_changed(unsigned max_in_flight) {
  requests_ = std::max(max_in_flight, 1U);
  share_ = window_bytes_ / requests_;
  most_ = std::min(most_, share_);
}

void GroupSizer::observe(const io::FetchStats& stats, bool grouping) {
  if (decided_ || !grouping) return;
  decided_ = true;
  if (stats.attempts < std::max<std::uint64_t>(requests_, kLeastGets)) return;
  link_full_ = queued(stats);
  if (!*link_full_) return;
  const double bytes = kRoundTrips * stats.bytes_per_second * stats.first_byte_p10_ms / 1e3 /
                       static_cast<double>(requests_);
  most_ = std::min(share_, static_cast<std::uint64_t>(bytes));
}

}  // namespace feedrate
