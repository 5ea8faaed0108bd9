// The fetcher against a scripted server (127.0.0.1) that misbehaves on purpose: a 200 to a
// ranged request, a 206 for other bytes, a 206 shorter than asked, a body cut short and then
// answered whole (also into a scattered range), an object shorter than the range, and If-Match on
// the first answer's ETag when a partial body is resumed, and a 503's Retry-After (capped). Every
// byte must land once, in its place. The retries' waits and the statistics' time are the
// fetcher's clock, a fake one here (tests/support/fake_clock.h): a wait takes no real time, and
// its length is exact.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "io/remote/range_fetcher.h"
#include "io/remote/remote_error.h"
#include "tests/io/remote/fetch_test_util.h"
#include "tests/io/remote/scripted_server.h"
#include "tests/support/fake_clock.h"

namespace feedrate::io {
namespace {

using test_support::drain;
using test_support::requested_range;
using test_support::same_bytes;
using test_support::ScriptedServer;
using testing::FakeClock;
using namespace std::chrono_literals;

const std::vector<unsigned char>& object() {
  static const auto bytes = test_support::patterned_bytes(100'000, 7, 3);
  return bytes;
}

std::string slice(std::size_t first, std::size_t count) {
  return std::string(object().begin() + static_cast<std::ptrdiff_t>(first),
                     object().begin() + static_cast<std::ptrdiff_t>(first + count));
}

// A 200 with the whole object, as a server that ignores Range sends.
std::string whole(const std::string& etag = "") {
  return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(object().size()) + "\r\n" +
         (etag.empty() ? "" : "ETag: " + etag + "\r\n") + "Connection: close\r\n\r\n" +
         slice(0, object().size());
}

// A 206 for [first, last], with only `sent` bytes of its body before the connection closes.
std::string partial(std::size_t first, std::size_t last, std::size_t sent,
                    const std::string& etag = "") {
  return "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(first) + "-" +
         std::to_string(last) + "/" + std::to_string(object().size()) +
         "\r\nContent-Length: " + std::to_string(last - first + 1) + "\r\n" +
         (etag.empty() ? "" : "ETag: " + etag + "\r\n") + "Connection: close\r\n\r\n" +
         slice(first, sent);
}

// The answer a well-behaved server gives to `request`.
std::string honest(const std::string& request) {
  const auto [first, last] = requested_range(request);
  return partial(first, last, last - first + 1);
}

// Retries after 1 to 5 ms of `clock`'s time.
RangeFetcherOptions quick(FakeClock& clock) {
  RangeFetcherOptions options;
  options.retry.base_delay = 1ms;
  options.retry.max_delay = 5ms;
  options.clock = &clock;
  return options;
}

// Fetches [offset, offset + buffer.size()) of the server's object; `delivered` receives the
// fetcher's count of bytes put into buffers.
FetchResult fetch(const ScriptedServer& server, std::uint64_t offset,
                  std::vector<std::byte>& buffer, const std::string& if_match = "",
                  std::uint64_t* delivered = nullptr) {
  FakeClock clock;
  RangeFetcher fetcher(S3Settings(), quick(clock));
  fetcher.submit({server.url("/object.bin"), offset, buffer, 1, if_match});
  auto results = drain(fetcher);
  EXPECT_EQ(results.size(), 1u);
  if (delivered != nullptr) *delivered = fetcher.stats().bytes;
  return results.empty() ? FetchResult() : results[0];
}

TEST(ScriptedFetch, AServerIgnoringRangeGivesTheRightBytes) {
  ScriptedServer server([](const std::string&, std::size_t) { return whole(); });
  std::vector<std::byte> buffer(5'000);
  const auto result = fetch(server, 70'000, buffer);
  ASSERT_FALSE(result.error) << result.message;
  EXPECT_EQ(result.attempts, 1u);
  EXPECT_TRUE(same_bytes(buffer, object(), 70'000));
}

TEST(ScriptedFetch, A206ForOtherBytesIsABadResponse) {
  ScriptedServer server([](const std::string&, std::size_t) { return partial(0, 99, 100); });
  std::vector<std::byte> buffer(100);
  const auto result = fetch(server, 500, buffer);
  EXPECT_EQ(result.error, make_error_code(RemoteErrc::kBadResponse));
  EXPECT_EQ(result.attempts, 1u);
  EXPECT_NE(result.message.find("asked from 500, got Content-Range from 0"), std::string::npos)
      << result.message;
}

TEST(ScriptedFetch, AShorter206IsCompletedByASecondRequestForTheRest) {
  ScriptedServer server([](const std::string& request, std::size_t index) {
    const auto [first, last] = requested_range(request);
    return index == 0 ? partial(first, first + 299, 300) : honest(request);
  });
  std::vector<std::byte> buffer(1'000);
  std::uint64_t delivered = 0;
  const auto result = fetch(server, 2'000, buffer, "", &delivered);
  ASSERT_FALSE(result.error) << result.message;
  EXPECT_EQ(delivered, buffer.size());
  EXPECT_EQ(result.attempts, 2u);
  EXPECT_TRUE(same_bytes(buffer, object(), 2'000));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requested_range(requests[0]), (std::pair<std::size_t, std::size_t>{2'000, 2'999}));
  EXPECT_EQ(requested_range(requests[1]), (std::pair<std::size_t, std::size_t>{2'300, 2'999}));
}

TEST(ScriptedFetch, ABodyCutShortThenAnsweredWholeLandsOnce) {
  ScriptedServer server([](const std::string& request, std::size_t index) {
    const auto [first, last] = requested_range(request);
    return index == 0 ? partial(first, last, 4'321, "\"v1\"") : whole("\"v1\"");
  });
  std::vector<std::byte> buffer(20'000);
  std::uint64_t delivered = 0;
  const auto result = fetch(server, 10'000, buffer, "", &delivered);
  ASSERT_FALSE(result.error) << result.message;
  EXPECT_EQ(result.attempts, 2u);
  EXPECT_EQ(delivered, buffer.size());  // each byte once
  EXPECT_TRUE(same_bytes(buffer, object(), 10'000));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(test_support::header_value(requests[0], "If-Match"), "");
  // The resumed request names the version the first bytes came from.
  EXPECT_EQ(test_support::header_value(requests[1], "If-Match"), "\"v1\"");
  EXPECT_EQ(requested_range(requests[1]).first, 14'321u);
}

// A range scattered into three pieces with gaps between them, its body cut short after `cut`
// bytes, then answered whole: each piece holds exactly its bytes of the object, once, and the
// second request asks from where the first stopped.
void scattered_fetch_cut_after(std::size_t cut) {
  ScriptedServer server([cut](const std::string& request, std::size_t index) {
    const auto [first, last] = requested_range(request);
    return index == 0 ? partial(first, last, cut, "\"v1\"") : whole("\"v1\"");
  });
  std::vector<std::byte> a(3'000), b(2'000), c(6'000);
  FakeClock clock;
  RangeFetcher fetcher(S3Settings(), quick(clock));
  fetcher.submit({server.url("/object.bin"), 10'000, {}, 1, ""}, {{0, a}, {5'000, b}, {7'000, c}});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  ASSERT_FALSE(results[0].error) << results[0].message;
  EXPECT_EQ(results[0].attempts, 2u);
  EXPECT_EQ(results[0].bytes, 13'000u);
  EXPECT_TRUE(same_bytes(a, object(), 10'000));
  EXPECT_TRUE(same_bytes(b, object(), 15'000));
  EXPECT_TRUE(same_bytes(c, object(), 17'000));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requested_range(requests[1]),
            (std::pair<std::size_t, std::size_t>{10'000 + cut, 22'999}));
}

TEST(ScriptedFetch, AScatteredRangeCutInAGapLandsEachPieceOnce) {
  scattered_fetch_cut_after(4'321);
}

TEST(ScriptedFetch, AScatteredRangeCutInsideAPieceLandsEachPieceOnce) {
  scattered_fetch_cut_after(6'000);
}

TEST(ScriptedFetch, AnObjectShorterThanTheRangeIsNotSatisfiable) {
  ScriptedServer server([](const std::string&, std::size_t) { return whole(); });
  std::vector<std::byte> buffer(1'000);
  const auto result = fetch(server, object().size() - 10, buffer);
  EXPECT_EQ(result.error, make_error_code(RemoteErrc::kRangeNotSatisfiable));
  EXPECT_EQ(result.attempts, 1u);
  EXPECT_NE(result.message.find("the object is 100000 bytes"), std::string::npos) << result.message;
}

TEST(ScriptedFetch, TheCallersETagGoesOutAsIfMatch) {
  ScriptedServer server([](const std::string& request, std::size_t) {
    if (test_support::header_value(request, "If-Match") != "\"v2\"") {
      return std::string("HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\n\r\n");
    }
    return honest(request);
  });
  std::vector<std::byte> buffer(10);
  EXPECT_FALSE(fetch(server, 0, buffer, "\"v2\"").error);
  const auto changed = fetch(server, 0, buffer, "\"v1\"");
  EXPECT_EQ(changed.error, make_error_code(RemoteErrc::kObjectChanged));
  EXPECT_EQ(changed.attempts, 1u);
}

// A 503 asking for `seconds` with Retry-After, as S3 throttles.
std::string throttled(const std::string& seconds) {
  return "HTTP/1.1 503 Slow Down\r\nRetry-After: " + seconds +
         "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
}

// The backoff of quick() is at most 5 ms: the retry waits the second the server asked for, and the
// fake clock moves by that second only.
TEST(ScriptedFetch, ARetryAfterSetsTheRetrysWait) {
  ScriptedServer server([](const std::string& request, std::size_t index) {
    return index == 0 ? throttled("1") : honest(request);
  });
  FakeClock clock;
  RangeFetcher fetcher(S3Settings(), quick(clock));
  std::vector<std::byte> buffer(100);
  fetcher.submit({server.url("/object.bin"), 0, buffer, 1, ""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].error) << results[0].message;
  EXPECT_EQ(results[0].attempts, 2u);
  EXPECT_EQ(fetcher.stats().server_delays, 1u);
  EXPECT_TRUE(same_bytes(buffer, object(), 0));
  EXPECT_EQ(clock.now(), FakeClock::kStart + 1s);
}

// The default cap, on the fake clock: the retry waits 20 s of it, not the hour asked for.
TEST(ScriptedFetch, AnHourLongRetryAfterIsCappedSoNothingHangs) {
  ScriptedServer server([](const std::string& request, std::size_t index) {
    return index == 0 ? throttled("3600") : honest(request);
  });
  FakeClock clock;
  const RangeFetcherOptions options = quick(clock);
  RangeFetcher fetcher(S3Settings(), options);
  std::vector<std::byte> buffer(100);
  fetcher.submit({server.url("/object.bin"), 0, buffer, 1, ""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].error) << results[0].message;
  EXPECT_EQ(fetcher.stats().server_delays, 1u);
  EXPECT_EQ(clock.now(), FakeClock::kStart + options.retry.max_server_delay);
}

// The store's figures are timed on the fetcher's clock: a server that takes 40 ms of it to answer
// (it moves the fake clock while the GET is in flight) makes 40 ms of busy time with one GET in
// flight, however long the GET took in real time.
TEST(ScriptedFetch, TheStatisticsAreTimedOnTheFetchersClock) {
  FakeClock clock;
  ScriptedServer server([&clock](const std::string& request, std::size_t) {
    clock.advance(40ms);
    return honest(request);
  });
  RangeFetcher fetcher(S3Settings(), quick(clock));
  std::vector<std::byte> first(1'000);
  std::vector<std::byte> second(3'000);
  fetcher.submit({server.url("/object.bin"), 0, first, 1, ""});
  ASSERT_EQ(drain(fetcher).size(), 1u);
  fetcher.submit({server.url("/object.bin"), 5'000, second, 2, ""});
  ASSERT_EQ(drain(fetcher).size(), 1u);
  EXPECT_TRUE(same_bytes(second, object(), 5'000));
  const FetchStats stats = fetcher.stats();
  EXPECT_DOUBLE_EQ(stats.busy_seconds, 0.08);
  EXPECT_DOUBLE_EQ(stats.average_in_flight, 1);
  EXPECT_DOUBLE_EQ(stats.bytes_per_second, 4'000 / 0.08);
  EXPECT_DOUBLE_EQ(stats.by_in_flight[0].busy_seconds, 0.08);
}

}  // namespace
}  // namespace feedrate::io
