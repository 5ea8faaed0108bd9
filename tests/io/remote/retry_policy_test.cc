// The retry schedule: full-jitter delays within their exponential ceiling, a server's
// Retry-After as their floor up to its cap, the bounds on attempts and total time, the causes that
// are retried, and validation of the options.
#include "io/remote/retry_policy.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <stdexcept>

namespace feedrate::io {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

RetryOptions options(unsigned attempts = 5) {
  RetryOptions retry;
  retry.max_attempts = attempts;
  retry.base_delay = milliseconds(100);
  retry.max_delay = milliseconds(1000);
  retry.max_total = milliseconds(10'000);
  return retry;
}

TEST(RetryPolicy, CeilingDoublesUpToTheCap) {
  const Backoff backoff(options(), 1);
  EXPECT_EQ(backoff.ceiling(1), milliseconds(100));
  EXPECT_EQ(backoff.ceiling(2), milliseconds(200));
  EXPECT_EQ(backoff.ceiling(4), milliseconds(800));
  EXPECT_EQ(backoff.ceiling(5), milliseconds(1000));
  EXPECT_EQ(backoff.ceiling(60), milliseconds(1000));  // no overflow for a late retry
}

TEST(RetryPolicy, DelaysAreFullJitterWithinTheCeiling) {
  Backoff backoff(options(), 7);
  for (unsigned retry = 1; retry <= 6; ++retry) {
    std::set<nanoseconds::rep> seen;
    nanoseconds lowest = backoff.ceiling(retry);
    for (int i = 0; i < 200; ++i) {
      const auto delay = backoff.delay(retry);
      EXPECT_GE(delay, nanoseconds(0));
      EXPECT_LE(delay, backoff.ceiling(retry));
      lowest = std::min(lowest, delay);
      seen.insert(delay.count());
    }
    EXPECT_GT(seen.size(), 150u);  // drawn, not fixed
    // Full jitter reaches down towards zero, not just around half the ceiling.
    EXPECT_LT(lowest, backoff.ceiling(retry) / 10);
  }
}

TEST(RetryPolicy, SameSeedSameSchedule) {
  Backoff a(options(), 42);
  Backoff b(options(), 42);
  Backoff c(options(), 43);
  bool differs = false;
  for (unsigned retry = 1; retry <= 5; ++retry) {
    const auto delay = a.delay(retry);
    EXPECT_EQ(delay, b.delay(retry));
    differs = differs || delay != c.delay(retry);
  }
  EXPECT_TRUE(differs);
}

TEST(RetryPolicy, BoundsAttemptsAndTotalTime) {
  const Backoff backoff(options(3), 1);
  EXPECT_TRUE(backoff.allows(1, milliseconds(0)));
  EXPECT_TRUE(backoff.allows(2, milliseconds(10'000)));
  EXPECT_FALSE(backoff.allows(3, milliseconds(0)));       // three attempts made
  EXPECT_FALSE(backoff.allows(1, milliseconds(10'001)));  // past max_total
  const Backoff once(options(1), 1);
  EXPECT_FALSE(once.allows(1, milliseconds(0)));
}

TEST(RetryPolicy, AServersWaitIsTheFloorUpToItsCap) {
  auto retry = options();
  retry.max_server_delay = milliseconds(1500);
  Backoff backoff(retry, 3);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(backoff.delay(1, milliseconds(1000)), milliseconds(1000));
  EXPECT_EQ(backoff.delay(1, std::chrono::hours(1)), milliseconds(1500));  // capped
  // A floor below the draw changes nothing: the draws stay within their ceiling.
  for (int i = 0; i < 50; ++i) {
    const auto delay = backoff.delay(5, nanoseconds(1));
    EXPECT_GE(delay, nanoseconds(1));
    EXPECT_LE(delay, backoff.ceiling(5));
  }
}

TEST(RetryPolicy, RetriesTransientStatusesOnly) {
  EXPECT_EQ(retry_cause_of_status(503, "SlowDown"), RetryCause::kThrottled);
  EXPECT_EQ(retry_cause_of_status(429, ""), RetryCause::kThrottled);
  EXPECT_EQ(retry_cause_of_status(503, ""), RetryCause::kServerError);
  EXPECT_EQ(retry_cause_of_status(500, "InternalError"), RetryCause::kServerError);
  EXPECT_EQ(retry_cause_of_status(502, ""), RetryCause::kServerError);
  EXPECT_FALSE(retry_cause_of_status(501, "NotImplemented"));
  for (const long status : {400L, 401L, 403L, 404L, 412L, 416L}) {
    EXPECT_FALSE(retry_cause_of_status(status, "")) << status;
  }
}

TEST(RetryPolicy, ValidatesOptions) {
  auto bad = options();
  bad.max_attempts = 0;
  EXPECT_THROW(validate(bad), std::invalid_argument);
  bad = options();
  bad.base_delay = milliseconds(2000);
  EXPECT_THROW(validate(bad), std::invalid_argument);
  bad = options();
  bad.max_total = milliseconds(-1);
  EXPECT_THROW(validate(bad), std::invalid_argument);
  bad = options();
  bad.max_server_delay = milliseconds(-1);
  EXPECT_THROW(validate(bad), std::invalid_argument);
  EXPECT_NO_THROW(validate(options()));
}

TEST(RetryPolicy, NamesCauses) {
  EXPECT_STREQ(retry_cause_name(RetryCause::kThrottled), "throttled");
  EXPECT_STREQ(retry_cause_name(RetryCause::kShortBody), "short_body");
}

}  // namespace
}  // namespace feedrate::io
