// When a failed remote request is tried again, and after how long. A retry waits a delay drawn
// uniformly from [0, min(max_delay, base_delay * 2^(retry - 1))] ("full jitter", so that many
// clients throttled at once do not come back at once), and a request stops retrying after
// max_attempts attempts or when the retry would start later than max_total after the first one.
// A server that says how long to wait (Retry-After on a 429 or 503) sets the delay's floor, at
// most max_server_delay, so that a client does not come back while the server still refuses
// and a server asking for an hour does not stall a request that long.
// The causes that are retried are the transient ones; every other failure is final at once.
// Thread-safety: RetryOptions and the functions are values; a Backoff belongs to one thread.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

namespace feedrate::io {

enum class RetryCause {
  kServerError,  // HTTP 5xx
  kThrottled,    // HTTP 429, HTTP 503 with S3's SlowDown
  kConnection,   // refused, reset, closed without an answer
  kTimeout,      // connect timeout, or slower than the low-speed limit for its time
  kShortBody,    // the body ended before its Content-Length or before the range asked
};
inline constexpr std::size_t kRetryCauseCount = 5;
const char* retry_cause_name(RetryCause cause);

struct RetryOptions {
  unsigned max_attempts = 8;  // per request, the first included; 1 means no retries
  std::chrono::milliseconds base_delay{50};
  std::chrono::milliseconds max_delay{5'000};
  std::chrono::milliseconds max_total{120'000};  // no retry starts later than this after the first
  std::chrono::milliseconds max_server_delay{20'000};  // the most a Retry-After is waited for
};
// Throws std::invalid_argument for zero attempts, a negative delay or base_delay > max_delay.
void validate(const RetryOptions& options);

// The cause to retry an HTTP answer for (`s3_code`: the Code of its XML error body, or empty);
// nullopt when the status is final.
std::optional<RetryCause> retry_cause_of_status(long status, std::string_view s3_code);

class Backoff {
 public:
  Backoff(const RetryOptions& options, std::uint64_t seed);
  // The wait before retry number `retry` (1 for the first retry): the jittered draw, or
  // `server_floor` (what the server asked for, capped at max_server_delay) when that is longer.
  std::chrono::nanoseconds delay(
      unsigned retry, std::chrono::nanoseconds server_floor = std::chrono::nanoseconds(0));
  // Whether a request that has made `attempts` attempts may make another, which would start
  // `since_first` after its first attempt started.
  bool allows(unsigned attempts, std::chrono::nanoseconds since_first) const;
  // The upper bound of delay(retry): min(max_delay, base_delay * 2^(retry - 1)).
  std::chrono::nanoseconds ceiling(unsigned retry) const;

 private:
  RetryOptions options_;
  std::mt19937_64 random_;
};

// Retries counted by cause, indexed by RetryCause.
using RetryCounts = std::array<std::uint64_t, kRetryCauseCount>;

}  // namespace feedrate::io
