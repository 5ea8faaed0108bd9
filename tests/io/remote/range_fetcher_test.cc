// The fetcher and the object store without a server: zero-size and malformed requests, a port
// nobody listens on (retried, then failed as data, never thrown, and without the secret in the
// message; the retries wait on a fake clock, minutes of backoff in no real time), wake(), and
// option validation.
#include "io/remote/range_fetcher.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "io/remote/object_store.h"
#include "io/remote/remote_error.h"
#include "tests/io/remote/fetch_test_util.h"
#include "tests/io/remote/scripted_server.h"
#include "tests/support/fake_clock.h"

namespace feedrate::io {
namespace {

using test_support::closed_port;
using test_support::drain;
using testing::FakeClock;

constexpr const char* kSecret = "Sup3r/Secret+Key=Value";

// A local port with no listener: bound for a moment, then released.
S3Settings signed_settings(unsigned port) {
  S3Settings settings;
  settings.endpoint = "http://127.0.0.1:" + std::to_string(port);
  settings.path_style = true;
  settings.credentials = CredentialProvider::fixed(
      {"AKIATEST", Secret(kSecret), Secret(std::string(kSecret) + "token")},
      "environment (AWS_ACCESS_KEY_ID)");
  return settings;
}

RetryOptions quick_retries() {
  RetryOptions retry;
  retry.max_attempts = 3;
  retry.base_delay = std::chrono::milliseconds(1);
  retry.max_delay = std::chrono::milliseconds(5);
  return retry;
}

TEST(RangeFetcher, ZeroSizeAndMalformedRequestsFinishAsData) {
  RangeFetcher fetcher(S3Settings(), {});
  std::vector<std::byte> buffer(4);
  fetcher.submit({"s3://bkt/k", 0, {}, 1, ""});
  fetcher.submit({"ftp://host/x", 0, buffer, 2, ""});
  fetcher.submit({"s3://bkt/", 0, buffer, 3, ""});
  EXPECT_EQ(fetcher.pending(), 3u);
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_FALSE(results[0].error);
  EXPECT_EQ(results[0].tag, 1u);
  EXPECT_EQ(results[1].error, make_error_code(RemoteErrc::kInvalidUrl));
  EXPECT_NE(results[1].message.find("ftp"), std::string::npos);
  EXPECT_EQ(results[2].error, make_error_code(RemoteErrc::kInvalidUrl));
  EXPECT_EQ(fetcher.stats().requests, 3u);
  EXPECT_EQ(fetcher.stats().failed, 2u);
}

// Three attempts, whose retries wait up to a minute each on `clock`.
RetryOptions minute_retries() {
  RetryOptions retry = quick_retries();
  retry.base_delay = retry.max_delay = std::chrono::minutes(1);
  return retry;
}

// The time a fresh backoff of `retry` draws for the two retries of three attempts: the fetcher's
// (or the store's) draws, in its order.
Clock::duration two_retries(const RetryOptions& retry, std::uint64_t seed) {
  Backoff backoff(retry, seed);
  const auto first = backoff.delay(1);
  return first + backoff.delay(2);
}

// Minutes of backoff between the attempts cost no real time: the retries wait on the fetcher's
// clock, which moves by exactly their delays.
TEST(RangeFetcher, RefusedConnectionsAreRetriedThenReportedWithoutTheSecret) {
  FakeClock clock;
  RangeFetcherOptions options;
  options.retry = minute_retries();
  options.clock = &clock;
  RangeFetcher fetcher(signed_settings(closed_port()), options);
  std::vector<std::byte> buffer(100);
  fetcher.submit({"s3://bkt/shard-0.tar", 1000, buffer, 7, ""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].tag, 7u);
  EXPECT_EQ(results[0].error, make_error_code(RemoteErrc::kTransfer));
  EXPECT_EQ(results[0].attempts, 3u);
  EXPECT_NE(results[0].message.find("GET s3://bkt/shard-0.tar bytes 1000-1099"), std::string::npos)
      << results[0].message;
  EXPECT_NE(results[0].message.find("after 3 attempts"), std::string::npos) << results[0].message;
  EXPECT_EQ(results[0].message.find(kSecret), std::string::npos) << results[0].message;
  const auto stats = fetcher.stats();
  EXPECT_EQ(stats.retries[static_cast<std::size_t>(RetryCause::kConnection)], 2u);
  EXPECT_EQ(stats.attempts, 3u);
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(clock.now(), FakeClock::kStart + two_retries(options.retry, options.jitter_seed));
}

TEST(RangeFetcher, WakeEndsAWaitingPoll) {
  // The clock's waits last until the test moves it, which it never does: the retry never comes
  // due, and only wake() can end the poll.
  FakeClock clock(FakeClock::Sleep::kWaits);
  RangeFetcherOptions options;
  options.retry = minute_retries();
  options.clock = &clock;
  RangeFetcher fetcher(signed_settings(closed_port()), options);
  std::vector<std::byte> buffer(10);
  fetcher.submit({"s3://bkt/k", 0, buffer, 1, ""});
  // The retry's delay is drawn from [0, 60 s]; with this seed, it is not 0.
  ASSERT_GT(Backoff(options.retry, options.jitter_seed).delay(1), Clock::duration::zero());
  std::vector<FetchResult> results;
  // The first attempt is refused, and the poll waits on the clock for the retry. wake() from
  // another thread, once the poll waits (a timed wait is a fake clock's sleeper), ends the wait:
  // the poll returns with nothing, the request pending.
  std::thread waker([&] {
    while (clock.sleepers() == 0) std::this_thread::yield();
    fetcher.wake();
  });
  EXPECT_EQ(fetcher.poll(std::chrono::hours(1), results), 0u);
  waker.join();
  EXPECT_TRUE(results.empty());
  EXPECT_EQ(fetcher.pending(), 1u);
  EXPECT_EQ(fetcher.stats().attempts, 1u);
  EXPECT_EQ(clock.now(), FakeClock::kStart);
}

TEST(RangeFetcher, ValidatesOptions) {
  RangeFetcherOptions options;
  options.max_in_flight = 0;
  EXPECT_THROW(RangeFetcher(S3Settings(), options), std::invalid_argument);
  options.max_in_flight = 2000;
  EXPECT_THROW(validate(options), std::invalid_argument);
}

// The store's retries wait on its clock too: minutes of fake time, exactly their delays.
TEST(ObjectStore, FailuresAreDataWithoutTheSecret) {
  FakeClock clock;
  ObjectStoreOptions options;
  options.retry = minute_retries();
  options.clock = &clock;
  ObjectStore store(signed_settings(closed_port()), options);
  const auto stat = store.stat("s3://bkt/k");
  EXPECT_EQ(clock.now(), FakeClock::kStart + two_retries(options.retry, options.jitter_seed));
  EXPECT_EQ(stat.error, make_error_code(RemoteErrc::kTransfer));
  EXPECT_NE(stat.message.find("HEAD s3://bkt/k"), std::string::npos) << stat.message;
  EXPECT_EQ(stat.message.find(kSecret), std::string::npos) << stat.message;
  const auto listing = store.list("https://host/dir/");
  EXPECT_EQ(listing.error, make_error_code(RemoteErrc::kNotSupported));
  EXPECT_NE(listing.message.find("brace pattern"), std::string::npos);
  EXPECT_EQ(store.get("nonsense").error, make_error_code(RemoteErrc::kInvalidUrl));
  options.max_keys = 0;
  EXPECT_THROW(validate(options), std::invalid_argument);
}

}  // namespace
}  // namespace feedrate::io
