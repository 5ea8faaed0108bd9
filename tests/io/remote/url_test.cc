// URLs: telling them from local paths, splitting s3:// and http(s)://, the errors for malformed
// ones, and the percent-encoding of keys and query values.
#include "io/remote/url.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace feedrate::io {
namespace {

TEST(Url, TellsUrlsFromLocalPaths) {
  EXPECT_TRUE(is_url("s3://bucket/key"));
  EXPECT_TRUE(is_url("https://example.com/a"));
  EXPECT_TRUE(is_url("gs://bucket/key"));  // a URL, if one parse_url() refuses
  EXPECT_FALSE(is_url("/data/train"));
  EXPECT_FALSE(is_url("relative/dir:with/colon"));
  EXPECT_FALSE(is_url("./s3://not-a-url"));
  EXPECT_FALSE(is_url("://nothing"));
  EXPECT_FALSE(is_url("C:\\data"));
}

TEST(Url, SplitsS3Urls) {
  const auto url = parse_url("s3://my-bucket/train/shard-000001.tar");
  EXPECT_EQ(url.scheme, UrlScheme::kS3);
  EXPECT_EQ(url.bucket, "my-bucket");
  EXPECT_EQ(url.key, "train/shard-000001.tar");
  EXPECT_EQ(url.text, "s3://my-bucket/train/shard-000001.tar");
  EXPECT_EQ(parse_url("s3://my-bucket").key, "");
  EXPECT_EQ(parse_url("s3://my-bucket/").key, "");
  // Keys are kept as written: the AWS tools do not percent-decode s3:// URLs.
  EXPECT_EQ(parse_url("s3://my-bucket/a b%20c").key, "a b%20c");
}

TEST(Url, SplitsHttpUrls) {
  const auto url = parse_url("https://data.example.com:8443/sets/a.tar?x=1");
  EXPECT_EQ(url.scheme, UrlScheme::kHttps);
  EXPECT_EQ(url.host, "data.example.com");
  EXPECT_EQ(url.port, 8443u);
  EXPECT_EQ(url.path, "/sets/a.tar?x=1");
  const auto plain = parse_url("http://127.0.0.1");
  EXPECT_EQ(plain.scheme, UrlScheme::kHttp);
  EXPECT_EQ(plain.port, 0u);
  EXPECT_EQ(plain.path, "/");
  const auto v6 = parse_url("http://[::1]:9000/x");
  EXPECT_EQ(v6.host, "[::1]");
  EXPECT_EQ(v6.port, 9000u);
  EXPECT_EQ(parse_url("HTTPS://h/q").scheme, UrlScheme::kHttps);
  EXPECT_EQ(parse_url("http://h?q=1").path, "/?q=1");
}

void expect_invalid(const std::string& url, const std::string& fragment) {
  try {
    parse_url(url);
    ADD_FAILURE() << url << " parsed";
  } catch (const std::invalid_argument& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(url), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(Url, RefusesMalformedUrls) {
  expect_invalid("gs://bucket/key", "scheme 'gs' is not supported");
  expect_invalid("s3:///key", "no bucket");
  expect_invalid("s3://ab/key", "3 to 63 characters");
  expect_invalid("s3://My_Bucket/key", "character S3 does not allow");
  expect_invalid("http:///path", "no host");
  expect_invalid("http://host:/x", "port ''");
  expect_invalid("http://host:99999/x", "1 to 65535");
  expect_invalid("http://host:12ab/x", "port '12ab'");
  expect_invalid("http://[::1/x", "IPv6");
  expect_invalid("https://user:pw@host/x", "credentials in the URL");
  expect_invalid("/local/path", "expected s3://");
}

TEST(Url, EncodesKeysAndQueryValues) {
  EXPECT_EQ(encode_path("train/a b+c~_-.tar"), "train/a%20b%2Bc~_-.tar");
  EXPECT_EQ(encode_path("\xc3\xa9"), "%C3%A9");
  EXPECT_EQ(encode_query_value("train/x=1&y"), "train%2Fx%3D1%26y");
}

}  // namespace
}  // namespace feedrate::io
