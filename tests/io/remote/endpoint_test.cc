// Where requests go: path-style URLs under a custom endpoint, virtual-hosted ones on AWS,
// http(s) URLs unchanged, ListObjectsV2 queries sorted and encoded for SigV4, and a bucket's
// region once S3 named it: on AWS its host, under a custom endpoint only the signature's.
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
  EXPECT_EQ(endpoint.object_target(parse_url("s3://bkt/train/a b.tar")).http_url,
            "http://127.0.0.1:9000/bkt/train/a%20b.tar");
}

TEST(Endpoint, AwsIsVirtualHosted) {
  S3Settings settings;
  settings.region = "eu-central-1";
  const RemoteEndpoint endpoint(settings, {});
  EXPECT_EQ(endpoint.object_target(parse_url("s3://bkt/k")).http_url,
            "https://bkt.s3.eu-central-1.amazonaws.com/k");
  EXPECT_EQ(endpoint.object_target(parse_url("s3://my.dotted.bucket/k")).http_url,
            "https://s3.eu-central-1.amazonaws.com/my.dotted.bucket/k");
}

TEST(Endpoint, HttpUrlsGoAsTheyAreAndUnsigned) {
  S3Settings settings = custom_endpoint();
  settings.credentials = CredentialProvider::fixed({"AKIA", Secret("s"), {}}, "test");
  const RemoteEndpoint endpoint(settings, {});
  const auto target = endpoint.object_target(parse_url("https://host:8443/a%20b.tar"));
  EXPECT_EQ(target.http_url, "https://host:8443/a%20b.tar");
  EXPECT_FALSE(target.sign);
  EXPECT_EQ(target.bucket, "");
  EXPECT_TRUE(endpoint.object_target(parse_url("s3://bkt/k")).sign);
  EXPECT_FALSE(RemoteEndpoint(custom_endpoint(), {}).object_target(parse_url("s3://bkt/k")).sign);
}

TEST(Endpoint, BucketUrlsAreNotObjects) {
  const RemoteEndpoint endpoint(custom_endpoint(), {});
  EXPECT_THROW(endpoint.object_target(parse_url("s3://bkt/")), std::invalid_argument);
}

TEST(Endpoint, ListQueriesAreSortedAndEncoded) {
  const RemoteEndpoint endpoint(custom_endpoint(), {});
  EXPECT_EQ(
      endpoint
          .bucket_target(
              "bkt", {{"prefix", "train/a b"}, {"list-type", "2"}, {"continuation-token", "x/y="}})
          .http_url,
      "http://127.0.0.1:9000/bkt/?continuation-token=x%2Fy%3D&list-type=2&prefix=train%2Fa%20b");
}

TEST(Endpoint, ALearnedRegionMovesAnAwsRequestToTheRegionsHost) {
  S3Settings settings;
  const RemoteEndpoint endpoint(settings, {});
  const auto first = endpoint.bucket_target("bkt", {{"list-type", "2"}});
  EXPECT_EQ(first.region, "us-east-1");
  EXPECT_EQ(first.redirected_from, "");
  const auto moved = endpoint.in_region(first, "eu-west-1");
  EXPECT_EQ(moved.http_url, "https://bkt.s3.eu-west-1.amazonaws.com/?list-type=2");
  EXPECT_EQ(moved.region, "eu-west-1");
  EXPECT_EQ(moved.redirected_from, "us-east-1");
  // Not kept until learnt; then every later request of the settings' copies goes there.
  EXPECT_EQ(endpoint.object_target(parse_url("s3://bkt/k")).region, "us-east-1");
  endpoint.learn_region("bkt", "eu-west-1");
  const RemoteEndpoint other(settings, {});
  const auto later = other.object_target(parse_url("s3://bkt/k"));
  EXPECT_EQ(later.http_url, "https://bkt.s3.eu-west-1.amazonaws.com/k");
  EXPECT_EQ(later.region, "eu-west-1");
  EXPECT_EQ(later.redirected_from, "");
  EXPECT_EQ(other.object_target(parse_url("s3://my.dotted.bucket/k")).http_url,
            "https://s3.us-east-1.amazonaws.com/my.dotted.bucket/k");
  endpoint.learn_region("my.dotted.bucket", "ap-south-1");
  EXPECT_EQ(other.object_target(parse_url("s3://my.dotted.bucket/k")).http_url,
            "https://s3.ap-south-1.amazonaws.com/my.dotted.bucket/k");
}

TEST(Endpoint, ACustomEndpointKeepsItsHostInAnyRegion) {
  const RemoteEndpoint endpoint(custom_endpoint(), {});
  const auto first = endpoint.object_target(parse_url("s3://bkt/k"));
  const auto moved = endpoint.in_region(first, "eu-west-1");
  EXPECT_EQ(moved.http_url, "http://127.0.0.1:9000/bkt/k");
  EXPECT_EQ(moved.region, "eu-west-1");
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
