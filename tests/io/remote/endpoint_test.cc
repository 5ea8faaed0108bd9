// Where requests go: path-style URLs under a custom endpoint, virtual-hosted ones on AWS,
// http(s) URLs unchanged, and ListObjectsV2 queries sorted and encoded for SigV4.
#include "io/remote/endpoint.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace feedrate::io {
namespace {

S3Settings custom_endpoint() {
  S3Settings settings;
  settings.endpoint = "http://127.0.0.1:9000";
  settings.path_style = true;
  return settings;
}

TEST(Endpoint, CustomEndpointsArePathStyle) {
  const RemoteEndpoint endpoint(custom_endpoint(), {});
  EXPECT_EQ(endpoint.object_url(parse_url("s3://bkt/train/a b.tar")),
            "http://127.0.0.1:9000/bkt/train/a%20b.tar");
}

TEST(Endpoint, AwsIsVirtualHosted) {
  S3Settings settings;
  settings.region = "eu-central-1";
  const RemoteEndpoint endpoint(settings, {});
  EXPECT_EQ(endpoint.object_url(parse_url("s3://bkt/k")),
            "https://bkt.s3.eu-central-1.amazonaws.com/k");
  EXPECT_EQ(endpoint.object_url(parse_url("s3://my.dotted.bucket/k")),
            "https://s3.eu-central-1.amazonaws.com/my.dotted.bucket/k");
}

TEST(Endpoint, HttpUrlsGoAsTheyAreAndUnsigned) {
  S3Settings settings = custom_endpoint();
  settings.credentials = CredentialProvider::fixed({"AKIA", Secret("s"), {}}, "test");
  const RemoteEndpoint endpoint(settings, {});
  const auto url = parse_url("https://host:8443/a%20b.tar");
  EXPECT_EQ(endpoint.object_url(url), "https://host:8443/a%20b.tar");
  EXPECT_FALSE(endpoint.signs(url));
  EXPECT_TRUE(endpoint.signs(parse_url("s3://bkt/k")));
  EXPECT_FALSE(RemoteEndpoint(custom_endpoint(), {}).signs(parse_url("s3://bkt/k")));
}

TEST(Endpoint, BucketUrlsAreNotObjects) {
  const RemoteEndpoint endpoint(custom_endpoint(), {});
  EXPECT_THROW(endpoint.object_url(parse_url("s3://bkt/")), std::invalid_argument);
}

TEST(Endpoint, ListQueriesAreSortedAndEncoded) {
  const RemoteEndpoint endpoint(custom_endpoint(), {});
  EXPECT_EQ(
      endpoint.bucket_url(
          "bkt", {{"prefix", "train/a b"}, {"list-type", "2"}, {"continuation-token", "x/y="}}),
      "http://127.0.0.1:9000/bkt/?continuation-token=x%2Fy%3D&list-type=2&prefix=train%2Fa%20b");
}

TEST(Endpoint, ValidatesTransferOptions) {
  TransferOptions options;
  options.connect_timeout = std::chrono::milliseconds(0);
  EXPECT_THROW(RemoteEndpoint(custom_endpoint(), options), std::invalid_argument);
  options = TransferOptions();
  options.low_speed_limit = -1;
  EXPECT_THROW(validate(options), std::invalid_argument);
}

}  // namespace
}  // namespace feedrate::io
