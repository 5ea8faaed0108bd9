// Every retry cause of the range fetcher, made real by the fault proxy in front of moto or nginx
// (tests/remote/servers.py --proxy; skipped without $FEEDRATE_REMOTE_ENDPOINTS): 503 SlowDown,
// 500, 429, a 503 with Retry-After (waited for), a reset before any byte, a reset and a clean
// close in the middle of the body, and a stalled answer caught by the low-speed timeout. Each ends
// with the right bytes, each byte delivered once; a retry after a partial body asks only for the
// rest (the proxy's log shows the Range of every request). The retries wait on the fetcher's
// clock, a fake one (tests/support/fake_clock.h): their delays take no real time and are exact;
// the low-speed timeout is libcurl's, in real time.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "io/remote/range_fetcher.h"
#include "io/remote/remote_error.h"
#include "tests/io/remote/remote_servers.h"
#include "tests/support/fake_clock.h"

namespace feedrate::io {
namespace {

using test_support::drain;
using test_support::RemoteServers;
using test_support::same_bytes;
using testing::FakeClock;

class RemoteFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    servers_ = RemoteServers::load(why);
    if (!servers_) GTEST_SKIP() << why;
    if (!servers_->has("proxy")) GTEST_SKIP() << "no fault proxy (servers.py up --proxy s3|http)";
    for (const auto& name : servers_->files()) {
      if (servers_->local(name).size() >= 64 * 1024) object_ = name;
    }
    if (object_.empty()) GTEST_SKIP() << "the test data has no file of 64 KiB or more";
    servers_->clear_faults();
  }
  void TearDown() override {
    if (servers_ && servers_->has("proxy")) servers_->clear_faults();
  }

  // Retries after 1 to 20 ms of clock_'s time.
  RangeFetcherOptions options() {
    RangeFetcherOptions options;
    options.retry.base_delay = std::chrono::milliseconds(1);
    options.retry.max_delay = std::chrono::milliseconds(20);
    options.clock = &clock_;
    return options;
  }

  S3Settings settings() const {
    if (servers_->proxied_url(object_).starts_with("s3://")) {
      return servers_->s3_settings(servers_->get("proxy"));
    }
    return S3Settings();
  }

  // Fetches [kOffset, kOffset + kSize) of the object through the proxy with `rule` armed (for
  // the object's ranged GETs), checks the bytes and returns the result.
  FetchResult fetch_through(nlohmann::json rule, const RangeFetcherOptions& fetch_options) {
    rule["match"] = object_;
    rule["has_range"] = true;
    servers_->add_faults(rule);
    RangeFetcher fetcher(settings(), fetch_options);
    std::vector<std::byte> buffer(kSize);
    fetcher.submit({servers_->proxied_url(object_), kOffset, buffer, 9, ""});
    const auto results = drain(fetcher);
    EXPECT_EQ(results.size(), 1u);
    if (results.size() != 1) return {};
    EXPECT_FALSE(results[0].error) << results[0].message;
    EXPECT_TRUE(same_bytes(buffer, servers_->local(object_), kOffset));
    stats_ = fetcher.stats();
    EXPECT_EQ(stats_.bytes, kSize);  // every byte once: none fetched twice into the buffer
    return results[0];
  }

  // The proxy's log entries for the object's ranged GETs, in order, once it has logged `count`
  // of them: it logs a request after answering it, so its log may lag behind what the client saw.
  std::vector<nlohmann::json> requests_seen(std::size_t count) const {
    std::vector<nlohmann::json> requests;
    for (int tries = 0; tries < 100 && requests.size() < count; ++tries) {
      if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      requests.clear();
      for (const auto& entry : servers_->proxy_log()) {
        if (entry["path"].get<std::string>().find(object_) != std::string::npos &&
            entry["range"].is_string()) {
          requests.push_back(entry);
        }
      }
    }
    return requests;
  }

  // The Range headers of those requests.
  std::vector<std::string> ranges_seen(std::size_t count) const {
    std::vector<std::string> ranges;
    for (const auto& entry : requests_seen(count)) ranges.push_back(entry["range"]);
    return ranges;
  }

  std::uint64_t retries(RetryCause cause) const {
    return stats_.retries[static_cast<std::size_t>(cause)];
  }

  static constexpr std::uint64_t kOffset = 1000;
  static constexpr std::size_t kSize = 50'000;
  std::optional<RemoteServers> servers_;
  std::string object_;
  FetchStats stats_;
  FakeClock clock_;  // the fetchers' (their retries wait on it)
};

TEST_F(RemoteFaults, SlowDownIsThrottling) {
  const auto result =
      fetch_through({{"fault", "status"}, {"status", 503}, {"times", 2}}, options());
  EXPECT_EQ(result.attempts, 3u);
  EXPECT_EQ(retries(RetryCause::kThrottled), 2u);
}

TEST_F(RemoteFaults, TooManyRequestsIsThrottling) {
  const auto result = fetch_through({{"fault", "status"}, {"status", 429}}, options());
  EXPECT_EQ(result.attempts, 2u);
  EXPECT_EQ(retries(RetryCause::kThrottled), 1u);
}

TEST_F(RemoteFaults, ARetryAfterIsWaitedForThoughTheBackoffIsShorter) {
  // The backoff of options() is at most 20 ms; the server asks for a second, which the retry
  // waits for on the fetcher's clock, the only wait that moves it.
  const auto result = fetch_through(
      {{"fault", "status"}, {"status", 503}, {"code", "SlowDown"}, {"retry_after", 1}}, options());
  EXPECT_EQ(result.attempts, 2u);
  EXPECT_EQ(retries(RetryCause::kThrottled), 1u);
  EXPECT_EQ(stats_.server_delays, 1u);
  EXPECT_EQ(clock_.now(), FakeClock::kStart + std::chrono::seconds(1));
  const auto requests = requests_seen(2);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["status"], 503);
}

TEST_F(RemoteFaults, InternalErrorIsAServerError) {
  const auto result = fetch_through({{"fault", "status"}, {"status", 500}}, options());
  EXPECT_EQ(result.attempts, 2u);
  EXPECT_EQ(retries(RetryCause::kServerError), 1u);
}

TEST_F(RemoteFaults, AResetBeforeAnyByteIsRetried) {
  const auto result = fetch_through({{"fault", "reset"}}, options());
  EXPECT_EQ(result.attempts, 2u);
  EXPECT_EQ(retries(RetryCause::kConnection), 1u);
  const std::string whole =
      "bytes=" + std::to_string(kOffset) + "-" + std::to_string(kOffset + kSize - 1);
  EXPECT_EQ(ranges_seen(2), (std::vector<std::string>{whole, whole}));
}

TEST_F(RemoteFaults, AResetMidBodyResumesAfterTheBytesReceived) {
  const auto result = fetch_through({{"fault", "reset"}, {"after_bytes", 20'000}}, options());
  EXPECT_EQ(result.attempts, 2u);
  EXPECT_EQ(retries(RetryCause::kConnection), 1u);
  const auto ranges = ranges_seen(2);
  ASSERT_EQ(ranges.size(), 2u);
  // libcurl may have passed on fewer bytes than the proxy sent before the reset; the second
  // request starts exactly where the delivered ones end, and ends where the range does.
  EXPECT_TRUE(ranges[1].ends_with(std::to_string(kOffset + kSize - 1))) << ranges[1];
  EXPECT_NE(ranges[1], ranges[0]);
}

TEST_F(RemoteFaults, AShortBodyResumesAtItsEnd) {
  const auto result = fetch_through({{"fault", "short"}, {"after_bytes", 12'345}}, options());
  EXPECT_EQ(result.attempts, 2u);
  EXPECT_EQ(retries(RetryCause::kShortBody), 1u);
  const auto ranges = ranges_seen(2);
  ASSERT_EQ(ranges.size(), 2u);
  // A clean close delivers every byte sent, so the resumption point is exact.
  EXPECT_EQ(ranges[1], "bytes=" + std::to_string(kOffset + 12'345) + "-" +
                           std::to_string(kOffset + kSize - 1));
}

TEST_F(RemoteFaults, AStalledAnswerTimesOut) {
  auto stalled = options();
  stalled.transfer.low_speed_time = std::chrono::seconds(1);
  stalled.transfer.low_speed_limit = 1;
  const auto result = fetch_through({{"fault", "delay"}, {"delay_ms", 4000}}, stalled);
  EXPECT_EQ(result.attempts, 2u);
  EXPECT_EQ(retries(RetryCause::kTimeout), 1u);
}

TEST_F(RemoteFaults, RetriesRunOutIntoAnError) {
  auto few = options();
  few.retry.max_attempts = 3;
  servers_->add_faults(
      {{"match", object_}, {"fault", "status"}, {"status", 503}, {"always", true}});
  RangeFetcher fetcher(settings(), few);
  std::vector<std::byte> buffer(kSize);
  fetcher.submit({servers_->proxied_url(object_), kOffset, buffer, 1, ""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, make_error_code(RemoteErrc::kHttpStatus));
  EXPECT_EQ(results[0].attempts, 3u);
  EXPECT_NE(results[0].message.find("HTTP 503 SlowDown"), std::string::npos) << results[0].message;
  EXPECT_NE(results[0].message.find("after 3 attempts, the last throttled"), std::string::npos)
      << results[0].message;
}

TEST_F(RemoteFaults, ForbiddenAndMissingAreNotRetried) {
  for (const int status : {403, 404}) {
    servers_->clear_faults();
    servers_->add_faults({{"match", object_}, {"fault", "status"}, {"status", status}});
    RangeFetcher fetcher(settings(), options());
    std::vector<std::byte> buffer(10);
    fetcher.submit({servers_->proxied_url(object_), 0, buffer, 1, ""});
    const auto results = drain(fetcher);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].attempts, 1u);
    EXPECT_EQ(results[0].error,
              make_error_code(status == 403 ? RemoteErrc::kAccessDenied : RemoteErrc::kNotFound));
    EXPECT_NE(results[0].message.find("HTTP " + std::to_string(status)), std::string::npos);
    EXPECT_EQ(ranges_seen(1).size(), 1u);
  }
}

}  // namespace
}  // namespace feedrate::io
