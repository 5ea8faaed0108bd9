#include "io/throttle.h"

#include <algorithm>

namespace feedrate::io {
namespace {

// Rounded, not truncated (as a byte's transfer time in admit()): 50,000 us is
// 0.049999999999999996 s as a double, which truncation made a nanosecond short.
Clock::duration seconds_to_duration(double seconds) {
  return std::chrono::round<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

Throttle::Throttle(const ThrottleSpec& spec, Clock& clock)
    : spec_(validated(spec)),
      clock_(clock),
      ns_per_byte_(spec.mb_per_s > 0 ? 1e3 / spec.mb_per_s : 0),
      per_op_(spec.iops > 0 ? seconds_to_duration(1 / spec.iops) : Clock::duration::zero()),
      latency_(seconds_to_duration(spec.latency_us * 1e-6)) {}

Clock::time_point Throttle::admit(std::size_t bytes) {
  const auto transfer = std::chrono::round<Clock::duration>(
      std::chrono::duration<double, std::nano>(ns_per_byte_ * static_cast<double>(bytes)));
  const std::lock_guard lock(mutex_);
  const Clock::time_point now = clock_.now();
  if (bytes_paid_until_ == Clock::time_point::min()) bytes_paid_until_ = ops_paid_until_ = now;
  const Clock::time_point full = now - kBurst;
  bytes_paid_until_ = std::max(bytes_paid_until_, full) + transfer;
  ops_paid_until_ = std::max(ops_paid_until_, full) + per_op_;
  return std::max({bytes_paid_until_, ops_paid_until_, now + latency_});
}

}  // namespace feedrate::io
