// The range fetcher against real servers (tests/remote/servers.py; skipped without
// $FEEDRATE_REMOTE_ENDPOINTS): ranges from moto (signed) and nginx (http and https) identical
// to the local files, many requests in flight across polls, If-Match and a changed object,
// 403 and 404 failing at once with the URL and the credential source but no secret, a session
// token sent but never shown, and ranges past an object's end.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/remote/range_fetcher.h"
#include "io/remote/remote_error.h"
#include "tests/io/remote/remote_servers.h"

namespace feedrate::io {
namespace {

using test_support::drain;
using test_support::RemoteServers;
using test_support::same_bytes;

class RemoteFetch : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    servers_ = RemoteServers::load(why);
    if (!servers_) GTEST_SKIP() << why;
    files_ = servers_->files();
    if (files_.empty()) GTEST_SKIP() << "the test servers hold no data (servers.py up --data DIR)";
  }

  // The largest of the data's files, the one the range tests cut up.
  std::string largest() const {
    std::string best = files_.front();
    for (const auto& name : files_) {
      if (servers_->local(name).size() > servers_->local(best).size()) best = name;
    }
    return best;
  }

  // Ranges of every file: the whole of it, its first and last byte, and a middle part; each
  // fetched into its own buffer and compared with the local copy.
  void expect_identical(RangeFetcher& fetcher, bool s3_urls) {
    struct Range {
      std::string name;
      std::uint64_t offset;
      std::vector<std::byte> buffer;
    };
    std::vector<Range> ranges;
    for (const auto& name : files_) {
      const auto size = servers_->local(name).size();
      if (size == 0) continue;
      ranges.push_back({name, 0, std::vector<std::byte>(size)});
      ranges.push_back({name, 0, std::vector<std::byte>(1)});
      ranges.push_back({name, size - 1, std::vector<std::byte>(1)});
      ranges.push_back({name, size / 3, std::vector<std::byte>(size / 3 + 1)});
    }
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const auto url = s3_urls ? servers_->s3_url(ranges[i].name)
                               : servers_->get(https_ ? "https" : "http") + "/" + ranges[i].name;
      fetcher.submit({url, ranges[i].offset, ranges[i].buffer, i, ""});
    }
    const auto results = drain(fetcher);
    ASSERT_EQ(results.size(), ranges.size());
    for (const auto& result : results) {
      ASSERT_FALSE(result.error) << result.message;
      const auto& range = ranges[result.tag];
      EXPECT_EQ(result.bytes, range.buffer.size());
      EXPECT_TRUE(same_bytes(range.buffer, servers_->local(range.name), range.offset))
          << range.name << " at " << range.offset;
    }
  }

  std::optional<RemoteServers> servers_;
  std::vector<std::string> files_;
  bool https_ = false;
};

TEST_F(RemoteFetch, MotoRangesAreTheLocalBytes) {
  if (!servers_->has("s3")) GTEST_SKIP() << "no S3 server (servers.py up --s3)";
  RangeFetcher fetcher(servers_->s3_settings(servers_->get("s3")), {});
  expect_identical(fetcher, true);
  const auto stats = fetcher.stats();
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.retries_total(), 0u);
  EXPECT_GT(stats.first_byte_p50_ms, 0.0);
  EXPECT_GT(stats.bytes_per_second, 0.0);
}

TEST_F(RemoteFetch, NginxRangesAreTheLocalBytesOverHttpAndHttps) {
  if (!servers_->has("http")) GTEST_SKIP() << "no nginx (servers.py up --nginx)";
  RangeFetcherOptions few;
  few.max_in_flight = 4;
  RangeFetcher plain(S3Settings(), few);
  expect_identical(plain, false);
  // Kept-alive connections: more requests than transfers at once, on fewer connections.
  EXPECT_LT(plain.stats().connections, plain.stats().attempts);
  https_ = true;
  RangeFetcherOptions options;
  options.transfer.ca_file = servers_->get("ca_file");
  RangeFetcher tls(S3Settings(), options);
  expect_identical(tls, false);
}

TEST_F(RemoteFetch, UnknownCertificatesAreRefusedAtOnce) {
  if (!servers_->has("https")) GTEST_SKIP() << "no nginx (servers.py up --nginx)";
  RangeFetcher fetcher(S3Settings(), {});  // the system's CAs, which did not sign nginx's
  std::vector<std::byte> buffer(1);
  fetcher.submit({servers_->get("https") + "/" + files_.front(), 0, buffer, 0, ""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, make_error_code(RemoteErrc::kTransfer));
  EXPECT_EQ(results[0].attempts, 1u);
}

TEST_F(RemoteFetch, ManyRequestsStayInFlightAcrossPolls) {
  if (!servers_->has("s3")) GTEST_SKIP() << "no S3 server (servers.py up --s3)";
  const auto name = largest();
  const auto expected = servers_->local(name);
  RangeFetcherOptions options;
  options.max_in_flight = 8;
  RangeFetcher fetcher(servers_->s3_settings(servers_->get("s3")), options);
  // 64 pieces, submitted in "batches" of 16 while earlier ones are still running: the caller
  // never waits for a batch to drain before it submits the next.
  constexpr std::size_t kPieces = 64;
  const std::size_t piece = std::max<std::size_t>(1, expected.size() / kPieces);
  std::vector<std::vector<std::byte>> buffers(kPieces, std::vector<std::byte>(piece));
  std::vector<FetchResult> results;
  std::size_t submitted = 0;
  std::size_t submitted_while_busy = 0;
  while (results.size() < kPieces) {
    for (std::size_t i = 0; i < 16 && submitted < kPieces; ++i, ++submitted) {
      if (fetcher.pending() > 0) ++submitted_while_busy;
      const auto offset = (submitted * piece) % (expected.size() - piece + 1);
      fetcher.submit({servers_->s3_url(name), offset, buffers[submitted], submitted, ""});
    }
    fetcher.poll(std::chrono::milliseconds(1000), results);
  }
  EXPECT_GT(submitted_while_busy, 0u);
  for (const auto& result : results) {
    ASSERT_FALSE(result.error) << result.message;
    const auto offset = (result.tag * piece) % (expected.size() - piece + 1);
    EXPECT_TRUE(same_bytes(buffers[result.tag], expected, offset)) << result.tag;
  }
  const auto stats = fetcher.stats();
  EXPECT_GT(stats.peak_in_flight, 1u);  // 16 submitted at once: 8 start together
  EXPECT_LE(stats.peak_in_flight, 8u);
  EXPECT_LE(stats.average_in_flight, 8.0);  // how much they overlapped is the machine's
  EXPECT_EQ(stats.bytes, kPieces * piece);
  EXPECT_EQ(stats.completed, kPieces);
  // The bands split the busy time and the bytes that arrived; no band past the 8 allowed.
  double band_seconds = 0;
  std::uint64_t band_bytes = 0;
  for (std::size_t b = 0; b < kInFlightBands; ++b) {
    band_seconds += stats.by_in_flight[b].busy_seconds;
    band_bytes += stats.by_in_flight[b].bytes;
    if (b > in_flight_band(8)) {
      EXPECT_EQ(stats.by_in_flight[b].busy_seconds, 0) << b;
    }
  }
  EXPECT_NEAR(band_seconds, stats.busy_seconds, 1e-9);
  EXPECT_EQ(band_bytes, kPieces * piece);  // no retries here: each body byte arrived once
  // moto answers "Connection: close", so connection reuse is checked against nginx.
}

TEST_F(RemoteFetch, IfMatchReadsTheStatedVersionAndReportsAChangedOne) {
  if (!servers_->has("s3")) GTEST_SKIP() << "no S3 server (servers.py up --s3)";
  RangeFetcher fetcher(servers_->s3_settings(servers_->get("s3")), {});
  const auto name = files_.front();
  std::vector<std::byte> changed(1);
  fetcher.submit({servers_->s3_url(name), 0, changed, 1, "\"0123456789abcdef0123456789abcdef\""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, make_error_code(RemoteErrc::kObjectChanged));
  EXPECT_EQ(results[0].attempts, 1u);
  EXPECT_NE(results[0].message.find("HTTP 412"), std::string::npos) << results[0].message;
  EXPECT_NE(results[0].message.find("the object changed"), std::string::npos);
}

TEST_F(RemoteFetch, NotFoundFailsAtOnceNamingTheUrl) {
  if (!servers_->has("s3")) GTEST_SKIP() << "no S3 server (servers.py up --s3)";
  RangeFetcher fetcher(servers_->s3_settings(servers_->get("s3")), {});
  std::vector<std::byte> buffer(10);
  const auto url = servers_->s3_url("no-such-object.bin");
  fetcher.submit({url, 0, buffer, 0, ""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, make_error_code(RemoteErrc::kNotFound));
  EXPECT_EQ(results[0].attempts, 1u);
  EXPECT_NE(results[0].message.find(url), std::string::npos) << results[0].message;
  EXPECT_NE(results[0].message.find("HTTP 404 NoSuchKey"), std::string::npos) << results[0].message;
}

TEST_F(RemoteFetch, DeniedAccessFailsAtOnceWithTheSourceAndNoSecret) {
  if (!servers_->has("s3") || !servers_->auth()) {
    GTEST_SKIP() << "no S3 server checking signatures (servers.py up --s3 --auth)";
  }
  const std::string wrong = "WrongSecret/Value+0123456789abcdefghijklmn";
  RangeFetcher fetcher(servers_->s3_settings(servers_->get("s3"), wrong), {});
  std::vector<std::byte> buffer(10);
  const auto url = servers_->s3_url(files_.front());
  fetcher.submit({url, 0, buffer, 0, ""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  const auto& message = results[0].message;
  EXPECT_EQ(results[0].error, make_error_code(RemoteErrc::kAccessDenied));
  EXPECT_EQ(results[0].attempts, 1u);
  EXPECT_NE(message.find(url), std::string::npos) << message;
  EXPECT_NE(message.find("HTTP 403 SignatureDoesNotMatch"), std::string::npos) << message;
  EXPECT_NE(message.find("credentials: the test servers' endpoints file"), std::string::npos)
      << message;
  EXPECT_EQ(message.find(wrong), std::string::npos) << message;
  EXPECT_EQ(message.find(servers_->get("secret_key")), std::string::npos) << message;

  S3Settings no_credentials;
  no_credentials.endpoint = servers_->get("s3");
  no_credentials.path_style = true;
  RangeFetcher unsigned_fetcher(no_credentials, {});
  unsigned_fetcher.submit({url, 0, buffer, 0, ""});
  const auto denied = drain(unsigned_fetcher);
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_EQ(denied[0].error, make_error_code(RemoteErrc::kAccessDenied));
  EXPECT_NE(denied[0].message.find("none: unsigned requests"), std::string::npos)
      << denied[0].message;
}

TEST_F(RemoteFetch, ASessionTokenIsSignedAndNeverShown) {
  if (!servers_->has("s3") || !servers_->auth()) {
    GTEST_SKIP() << "no S3 server checking signatures (servers.py up --s3 --auth)";
  }
  // moto knows no session token, so a signed request carrying one is refused as InvalidToken
  // (HTTP 400): proof that the token went out in x-amz-security-token.
  const std::string token = "FwoGZXIvYXdzEFakeSessionToken/0123456789+abc==";
  auto settings = servers_->s3_settings(servers_->get("s3"));
  AwsCredentials with_token = *settings.credentials->current();
  with_token.session_token = Secret(token);
  settings.credentials = CredentialProvider::fixed(with_token, settings.credentials->source());
  RangeFetcher fetcher(settings, {});
  std::vector<std::byte> buffer(10);
  fetcher.submit({servers_->s3_url(files_.front()), 0, buffer, 0, ""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, make_error_code(RemoteErrc::kHttpStatus));
  EXPECT_NE(results[0].message.find("HTTP 400 InvalidToken"), std::string::npos)
      << results[0].message;
  EXPECT_EQ(results[0].message.find(token), std::string::npos) << results[0].message;
}

TEST_F(RemoteFetch, RangesPastTheEndAreNotSatisfiable) {
  if (!servers_->has("s3") || !servers_->has("http")) {
    GTEST_SKIP() << "needs moto and nginx (servers.py up --s3 --nginx)";
  }
  const auto name = files_.front();
  const auto size = servers_->local(name).size();
  RangeFetcher fetcher(servers_->s3_settings(servers_->get("s3")), {});
  std::vector<std::byte> beyond(10);
  std::vector<std::byte> across(10);
  std::vector<std::byte> across_nginx(10);
  fetcher.submit({servers_->s3_url(name), size + 100, beyond, 1, ""});  // starts past the end
  fetcher.submit({servers_->s3_url(name), size - 5, across, 2, ""});    // ends past it
  fetcher.submit({servers_->get("http") + "/" + name, size - 5, across_nginx, 3, ""});
  const auto results = drain(fetcher);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& result : results) {
    EXPECT_EQ(result.error, make_error_code(RemoteErrc::kRangeNotSatisfiable)) << result.message;
    EXPECT_EQ(result.attempts, 1u) << result.message;
  }
}

}  // namespace
}  // namespace feedrate::io
