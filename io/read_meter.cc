#include "io/read_meter.h"

#include <algorithm>

namespace feedrate::io {

ReadMeter::ReadMeter(const ThrottleSpec& throttle, Clock& clock)
    : clock_(clock), throttle_(throttle, clock), limited_(throttle.limited()) {}

void ReadMeter::begin_batch() {
  batch_start_ = clock_.now();
  last_change_ = batch_start_;
}

void ReadMeter::count_in_flight(Clock::time_point now, int change) {
  in_flight_ns_ += static_cast<double>(in_flight_) *
                   static_cast<double>(std::chrono::nanoseconds(now - last_change_).count());
  last_change_ = now;
  in_flight_ = static_cast<unsigned>(static_cast<int>(in_flight_) + change);
  peak_in_flight_ = std::max(peak_in_flight_, in_flight_);
}

ReadMeter::Op ReadMeter::start(std::size_t bytes) {
  const Clock::time_point now = clock_.now();
  count_in_flight(now, +1);
  return {now, limited_ ? throttle_.admit(bytes) : now};
}

void ReadMeter::finish(const Op& op) {
  const Clock::time_point now = clock_.now();
  count_in_flight(now, -1);
  latency_.record(std::chrono::duration_cast<std::chrono::nanoseconds>(now - op.started));
}

void ReadMeter::end_batch(ReadStats& stats) {
  const Clock::time_point now = clock_.now();
  count_in_flight(now, 0);
  busy_ns_ += static_cast<double>(std::chrono::nanoseconds(now - batch_start_).count());
  const auto micros = [](std::chrono::nanoseconds ns) {
    return static_cast<double>(ns.count()) / 1e3;
  };
  stats.latency_p50_us = micros(latency_.percentile(0.50));
  stats.latency_p99_us = micros(latency_.percentile(0.99));
  stats.average_in_flight = busy_ns_ > 0 ? in_flight_ns_ / busy_ns_ : 0;
  stats.peak_in_flight = peak_in_flight_;
}

}  // namespace feedrate::io
