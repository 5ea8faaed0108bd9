#include "io/remote/retry_policy.h"

#include <algorithm>
#include <stdexcept>

namespace feedrate::io {

const char* retry_cause_name(RetryCause cause) {
  switch (cause) {
    case RetryCause::kServerError:
      return "server_error";
    case RetryCause::kThrottled:
      return "throttled";
    case RetryCause::kConnection:
      return "connection";
    case RetryCause::kTimeout:
      return "timeout";
    case RetryCause::kShortBody:
      return "short_body";
  }
  return "unknown";
}

void validate(const RetryOptions& options) {
  if (options.max_attempts == 0) throw std::invalid_argument("retry: max_attempts must be >= 1");
  if (options.base_delay.count() < 0 || options.max_delay.count() < 0 ||
      options.max_total.count() < 0 || options.max_server_delay.count() < 0) {
    throw std::invalid_argument("retry: delays must not be negative");
  }
  if (options.base_delay > options.max_delay) {
    throw std::invalid_argument("retry: base_delay must not exceed max_delay");
  }
}

std::optional<RetryCause> retry_cause_of_status(long status, std::string_view s3_code) {
  if (status == 429 || (status == 503 && s3_code == "SlowDown")) return RetryCause::kThrottled;
  // 501 Not Implemented says the request will never work; every other 5xx may pass.
  if (status >= 500 && status <= 599 && status != 501) return RetryCause::kServerError;
  return std::nullopt;
}

Backoff::Backoff(const RetryOptions& options, std::uint64_t seed)
    : options_(options), random_(seed) {
  validate(options_);
}

std::chrono::nanoseconds Backoff::ceiling(unsigned retry) const {
  const std::chrono::nanoseconds cap = options_.max_delay;
  std::chrono::nanoseconds bound = options_.base_delay;
  for (unsigned i = 1; i < retry && bound < cap; ++i) bound *= 2;
  return bound < cap ? bound : cap;
}

std::chrono::nanoseconds Backoff::delay(unsigned retry, std::chrono::nanoseconds server_floor) {
  std::uniform_int_distribution<std::int64_t> uniform(0, ceiling(retry).count());
  const std::chrono::nanoseconds drawn(uniform(random_));
  const std::chrono::nanoseconds floor =
      std::min<std::chrono::nanoseconds>(server_floor, options_.max_server_delay);
  return std::max(drawn, floor);
}

bool Backoff::allows(unsigned attempts, std::chrono::nanoseconds since_first) const {
  return attempts < options_.max_attempts && since_first <= options_.max_total;
}

}  // namespace feedrate::io
