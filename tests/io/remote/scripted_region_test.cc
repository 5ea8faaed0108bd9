// A bucket outside the configured region, played by a scripted 127.0.0.1 server under a custom
// endpoint: it serves requests signed for the bucket's region (eu-west-1) and answers the others
// as S3 answers a request sent to the wrong region (301 PermanentRedirect with
// x-amz-bucket-region, 400 AuthorizationHeaderMalformed naming the <Region>, a HEAD's bare 301
// or 400). The region a request went to is its SigV4 credential scope's (the host stays the
// custom endpoint's). HEAD, GET, listing and ranged GETs follow the answer once, keep the
// bucket's region for the settings' copies (the object store's, every fetcher's, other threads'),
// fail naming the bucket and the regions when redirected twice, and never show the secret.
#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "io/remote/object_store.h"
#include "io/remote/range_fetcher.h"
#include "io/remote/remote_error.h"
#include "tests/io/remote/fetch_test_util.h"
#include "tests/io/remote/scripted_server.h"

namespace feedrate::io {
namespace {

using test_support::header_value;
using test_support::requested_range;
using test_support::ScriptedServer;

constexpr const char* kSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYREGIONSECRET";
constexpr const char* kToken = "FwoGZXIvYXdzREGIONSESSIONTOKEN";
constexpr const char* kHome = "eu-west-1";

const std::vector<unsigned char>& object() {
  static const auto bytes = test_support::patterned_bytes(10'000, 13, 5);
  return bytes;
}

// The region of a request's credential scope (Credential=KEY/DATE/REGION/s3/aws4_request).
std::string signed_region(const std::string& request) {
  const auto authorization = header_value(request, "Authorization");
  const auto at = authorization.find("Credential=");
  if (at == std::string::npos) return "(unsigned)";
  const auto date = authorization.find('/', at) + 1;
  const auto region = authorization.find('/', date) + 1;
  return authorization.substr(region, authorization.find('/', region) - region);
}

std::string answer(const std::string& status, const std::string& headers, const std::string& body) {
  return "HTTP/1.1 " + status + "\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

// How the server answers a request sent to another region than the bucket's.
enum class Misdirected {
  kPermanentRedirect,  // 301, x-amz-bucket-region, <Code>PermanentRedirect</Code>
  kMalformedHeader,    // 400 AuthorizationHeaderMalformed with <Region>, no header
  kBadRequestToHead,   // HEAD: 400 with x-amz-bucket-region and no body
  kRedirectElsewhere,  // 301 naming eu-west-1, and in eu-west-1 naming ap-south-1: never served
  kNoRegionNamed,      // 301 PermanentRedirect without the header or a <Region>
};

std::string misdirected(Misdirected how, const std::string& request) {
  const bool head = request.rfind("HEAD ", 0) == 0;
  const std::string home = how == Misdirected::kRedirectElsewhere && signed_region(request) == kHome
                               ? "ap-south-1"
                               : kHome;
  const std::string redirect_xml =
      "<Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access "
      "must be addressed using the specified endpoint.</Message><Bucket>corpus</Bucket>"
      "<Endpoint>corpus.s3." +
      home + ".amazonaws.com</Endpoint></Error>";
  switch (how) {
    case Misdirected::kMalformedHeader:
      return answer("400 Bad Request", "",
                    head ? ""
                         : "<Error><Code>AuthorizationHeaderMalformed</Code><Message>the "
                           "region 'us-east-1' is wrong; expecting 'eu-west-1'</Message>"
                           "<Region>eu-west-1</Region></Error>");
    case Misdirected::kBadRequestToHead:
      return answer("400 Bad Request", "x-amz-bucket-region: " + home + "\r\n", "");
    case Misdirected::kNoRegionNamed:
      return answer("301 Moved Permanently", "", head ? "" : redirect_xml);
    default:
      return answer("301 Moved Permanently", "x-amz-bucket-region: " + home + "\r\n",
                    head ? "" : redirect_xml);
  }
}

// The bucket "corpus" in eu-west-1 holding data.bin (object()).
std::string served(const std::string& request) {
  const std::string etag = "ETag: \"v1\"\r\n";
  if (request.rfind("HEAD ", 0) == 0) {
    return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(object().size()) + "\r\n" + etag +
           "Connection: close\r\n\r\n";
  }
  if (request.rfind("GET /corpus/?", 0) == 0) {
    return answer("200 OK", "",
                  "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>data.bin"
                  "</Key><Size>" +
                      std::to_string(object().size()) +
                      "</Size><ETag>\"v1\"</ETag></Contents>"
                      "</ListBucketResult>");
  }
  const std::string whole(object().begin(), object().end());
  if (header_value(request, "Range").empty()) return answer("200 OK", etag, whole);
  const auto [first, last] = requested_range(request);
  return answer("206 Partial Content",
                etag + "Content-Range: bytes " + std::to_string(first) + "-" +
                    std::to_string(last) + "/" + std::to_string(object().size()) + "\r\n",
                whole.substr(first, last - first + 1));
}

class RegionalBucket {
 public:
  explicit RegionalBucket(Misdirected how = Misdirected::kPermanentRedirect)
      : server_([how](const std::string& request, std::size_t) {
          const bool home = signed_region(request) == kHome;
          return home && how != Misdirected::kRedirectElsewhere ? served(request)
                                                                : misdirected(how, request);
        }) {}

  // Custom endpoint, us-east-1, temporary credentials: every copy shares the bucket regions.
  const S3Settings& settings() {
    if (!settings_.credentials->signs()) {
      settings_.endpoint = server_.url("");
      settings_.path_style = true;
      settings_.credentials = CredentialProvider::fixed(
          {"AKIAREGIONTEST", Secret(kSecret), Secret(kToken)}, "test keys");
    }
    return settings_;
  }
  // The regions the requests were signed for, in arrival order.
  std::vector<std::string> regions() const {
    std::vector<std::string> regions;
    for (const auto& request : server_.requests()) regions.push_back(signed_region(request));
    return regions;
  }
  std::map<std::string, int> per_region() const {
    std::map<std::string, int> counts;
    for (const auto& region : regions()) ++counts[region];
    return counts;
  }
  std::vector<std::string> requests() const { return server_.requests(); }

 private:
  ScriptedServer server_;
  S3Settings settings_;
};

using Regions = std::vector<std::string>;
using Counts = std::map<std::string, int>;

ObjectStoreOptions store_options() {
  ObjectStoreOptions options;
  options.retry.base_delay = std::chrono::milliseconds(1);
  options.retry.max_delay = std::chrono::milliseconds(5);
  return options;
}

RangeFetcherOptions fetch_options(unsigned in_flight = 4) {
  RangeFetcherOptions options;
  options.max_in_flight = in_flight;
  options.retry = store_options().retry;
  return options;
}

// Fetches ranges [at, at + size) of data.bin, each checked against the object.
std::vector<FetchResult> fetch_ranges(
    RangeFetcher& fetcher, const std::vector<std::pair<std::size_t, std::size_t>>& ranges) {
  std::vector<std::vector<std::byte>> buffers;
  buffers.reserve(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    buffers.emplace_back(ranges[i].second);
    fetcher.submit({"s3://corpus/data.bin", ranges[i].first, buffers.back(), i, ""});
  }
  auto results = test_support::drain(fetcher);
  for (const auto& result : results) {
    if (result.error) continue;
    EXPECT_TRUE(test_support::same_bytes(buffers[result.tag], object(), ranges[result.tag].first));
  }
  return results;
}

TEST(ScriptedRegion, AHeadIsRedirectedOnceThenTheBucketsRegionIsKept) {
  RegionalBucket bucket;
  ObjectStore store(bucket.settings(), store_options());
  const auto info = store.stat("s3://corpus/data.bin");
  ASSERT_TRUE(info.ok()) << info.message;
  EXPECT_EQ(info.value.size, object().size());
  EXPECT_EQ(bucket.regions(), (Regions{"us-east-1", kHome}));
  // The resend carries the temporary credentials' token as the first request did.
  EXPECT_EQ(header_value(bucket.requests()[1], "x-amz-security-token"), kToken);

  ASSERT_TRUE(store.stat("s3://corpus/data.bin").ok());
  const auto whole = store.get("s3://corpus/data.bin");
  ASSERT_TRUE(whole.ok()) << whole.message;
  EXPECT_EQ(whole.value, std::string(object().begin(), object().end()));
  const auto listed = store.list("s3://corpus/");
  ASSERT_TRUE(listed.ok()) << listed.message;
  ASSERT_EQ(listed.value.size(), 1u);
  EXPECT_EQ(listed.value[0].url, "s3://corpus/data.bin");
  EXPECT_EQ(bucket.per_region(), (Counts{{"us-east-1", 1}, {kHome, 4}}));

  // A fetcher of the same settings goes straight to the bucket's region.
  RangeFetcher fetcher(bucket.settings(), fetch_options());
  for (const auto& result : fetch_ranges(fetcher, {{0, 100}, {5'000, 2'000}})) {
    EXPECT_FALSE(result.error) << result.message;
    EXPECT_EQ(result.attempts, 1u);
  }
  EXPECT_EQ(bucket.per_region(), (Counts{{"us-east-1", 1}, {kHome, 6}}));
}

TEST(ScriptedRegion, AGetAndAListingAreRedirectedLikeAHead) {
  RegionalBucket get_bucket;
  ObjectStore get_store(get_bucket.settings(), store_options());
  const auto whole = get_store.get("s3://corpus/data.bin");
  ASSERT_TRUE(whole.ok()) << whole.message;
  EXPECT_EQ(whole.value.size(), object().size());
  EXPECT_EQ(get_bucket.regions(), (Regions{"us-east-1", kHome}));

  RegionalBucket list_bucket;
  ObjectStore list_store(list_bucket.settings(), store_options());
  const auto listed = list_store.list("s3://corpus/");
  ASSERT_TRUE(listed.ok()) << listed.message;
  EXPECT_EQ(listed.value.size(), 1u);
  EXPECT_EQ(list_bucket.regions(), (Regions{"us-east-1", kHome}));
}

TEST(ScriptedRegion, RangedGetsAreRedirectedAndLaterOnesGoStraight) {
  RegionalBucket bucket;
  {
    // One at a time: the second request is started after the first learnt the region.
    RangeFetcher fetcher(bucket.settings(), fetch_options(1));
    const auto results = fetch_ranges(fetcher, {{0, 1'000}, {9'000, 1'000}});
    ASSERT_EQ(results.size(), 2u);
    EXPECT_FALSE(results[0].error) << results[0].message;
    EXPECT_EQ(results[0].attempts, 2u);  // the wrong region's answer, then the bucket's
    EXPECT_FALSE(results[1].error) << results[1].message;
    EXPECT_EQ(results[1].attempts, 1u);
    EXPECT_EQ(bucket.regions(), (Regions{"us-east-1", kHome, kHome}));
  }
  // Other fetchers of the settings' copies, on other threads, and the object store: straight.
  std::vector<std::thread> readers;
  std::vector<std::vector<FetchResult>> per_thread(3);
  for (auto& results : per_thread) {
    readers.emplace_back([&results, settings = bucket.settings()] {
      RangeFetcher fetcher(settings, fetch_options());
      results = fetch_ranges(fetcher, {{100, 3'000}, {4'000, 10}});
    });
  }
  for (auto& reader : readers) reader.join();
  for (const auto& results : per_thread) {
    ASSERT_EQ(results.size(), 2u);
    for (const auto& result : results) EXPECT_FALSE(result.error) << result.message;
  }
  ObjectStore store(bucket.settings(), store_options());
  EXPECT_TRUE(store.stat("s3://corpus/data.bin").ok());
  EXPECT_EQ(bucket.per_region(), (Counts{{"us-east-1", 1}, {kHome, 2 + 6 + 1}}));
}

TEST(ScriptedRegion, RangedGetsInFlightTogetherAreEachRedirectedOnce) {
  RegionalBucket bucket;
  RangeFetcher fetcher(bucket.settings(), fetch_options(4));
  const auto results = fetch_ranges(fetcher, {{0, 10}, {10, 10}, {20, 10}, {30, 10}});
  ASSERT_EQ(results.size(), 4u);
  int misdirected = 0;
  for (const auto& result : results) {
    EXPECT_FALSE(result.error) << result.message;
    misdirected += static_cast<int>(result.attempts) - 1;
  }
  // However many went out before the first answer came back, each was resent once.
  EXPECT_EQ(bucket.per_region(), (Counts{{"us-east-1", misdirected}, {kHome, 4}}));
  EXPECT_GE(misdirected, 1);
}

TEST(ScriptedRegion, AnAuthorizationHeaderMalformedNamingTheRegionIsFollowed) {
  RegionalBucket bucket(Misdirected::kMalformedHeader);
  ObjectStore store(bucket.settings(), store_options());
  const auto whole = store.get("s3://corpus/data.bin");
  ASSERT_TRUE(whole.ok()) << whole.message;
  RangeFetcher fetcher(bucket.settings(), fetch_options());
  for (const auto& result : fetch_ranges(fetcher, {{10, 20}})) {
    EXPECT_FALSE(result.error) << result.message;
  }
  EXPECT_EQ(bucket.regions(), (Regions{"us-east-1", kHome, kHome}));

  RegionalBucket fetched_first(Misdirected::kMalformedHeader);
  RangeFetcher first_fetcher(fetched_first.settings(), fetch_options(1));
  for (const auto& result : fetch_ranges(first_fetcher, {{10, 20}})) {
    EXPECT_FALSE(result.error) << result.message;
  }
  EXPECT_EQ(fetched_first.regions(), (Regions{"us-east-1", kHome}));
}

TEST(ScriptedRegion, AHeadAnswered400WithTheBucketsRegionIsFollowed) {
  RegionalBucket bucket(Misdirected::kBadRequestToHead);
  ObjectStore store(bucket.settings(), store_options());
  const auto info = store.stat("s3://corpus/data.bin");
  ASSERT_TRUE(info.ok()) << info.message;
  EXPECT_EQ(bucket.regions(), (Regions{"us-east-1", kHome}));
}

// `message` names what `fragments` say and holds neither the secret nor the token.
void expect_named_without_secrets(const std::string& message,
                                  const std::vector<std::string>& fragments) {
  for (const auto& fragment : fragments) {
    EXPECT_NE(message.find(fragment), std::string::npos) << fragment << " in " << message;
  }
  EXPECT_EQ(message.find(kSecret), std::string::npos) << message;
  EXPECT_EQ(message.find(kToken), std::string::npos) << message;
}

TEST(ScriptedRegion, ASecondWrongRegionAnswerFailsNamingTheBucketAndRegions) {
  const std::vector<std::string> named = {"bucket 'corpus'", "sent to region 'us-east-1'",
                                          "redirected by S3 to region 'eu-west-1'",
                                          "the bucket is in region 'ap-south-1'"};
  // Each operation on settings of its own: none learnt a region before.
  RegionalBucket for_stat(Misdirected::kRedirectElsewhere);
  RegionalBucket for_get(Misdirected::kRedirectElsewhere);
  RegionalBucket for_fetch(Misdirected::kRedirectElsewhere);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const auto info = ObjectStore(for_stat.settings(), store_options()).stat("s3://corpus/data.bin");
  const auto whole = ObjectStore(for_get.settings(), store_options()).get("s3://corpus/data.bin");
  RangeFetcher fetcher(for_fetch.settings(), fetch_options(1));
  const auto results = fetch_ranges(fetcher, {{0, 100}});
  const std::string output =
      testing::internal::GetCapturedStdout() + testing::internal::GetCapturedStderr();

  EXPECT_EQ(info.error, make_error_code(RemoteErrc::kHttpStatus));
  expect_named_without_secrets(info.message, named);
  EXPECT_EQ(whole.error, make_error_code(RemoteErrc::kHttpStatus));
  expect_named_without_secrets(whole.message, named);
  expect_named_without_secrets(whole.message, {"GET s3://corpus/data.bin: HTTP 301 "
                                               "PermanentRedirect"});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].error, make_error_code(RemoteErrc::kHttpStatus));
  EXPECT_EQ(results[0].attempts, 2u);
  expect_named_without_secrets(results[0].message, named);
  expect_named_without_secrets(output, {});
  for (const auto* bucket : {&for_stat, &for_get, &for_fetch}) {
    EXPECT_EQ(bucket->regions(), (Regions{"us-east-1", kHome}));
  }
}

TEST(ScriptedRegion, AnAnswerNamingNoRegionFailsAtOnceSayingWhatToSet) {
  RegionalBucket bucket(Misdirected::kNoRegionNamed);
  ObjectStore store(bucket.settings(), store_options());
  const auto info = store.stat("s3://corpus/data.bin");
  EXPECT_EQ(info.error, make_error_code(RemoteErrc::kHttpStatus));
  expect_named_without_secrets(
      info.message, {"HEAD s3://corpus/data.bin: HTTP 301",
                     "S3 says bucket 'corpus' is not in region 'us-east-1'", "set AWS_REGION"});
  RangeFetcher fetcher(bucket.settings(), fetch_options(1));
  const auto results = fetch_ranges(fetcher, {{0, 100}});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].attempts, 1u);
  expect_named_without_secrets(results[0].message,
                               {"HTTP 301 PermanentRedirect", "names no region"});
  EXPECT_EQ(bucket.regions(), (Regions{"us-east-1", "us-east-1"}));
}

}  // namespace
}  // namespace feedrate::io
