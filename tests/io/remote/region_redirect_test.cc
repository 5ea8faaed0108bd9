// Which answers say a request went to the wrong region and what the bucket's region is
// (botocore's S3RegionRedirectorv2: x-amz-bucket-region, else the error's <Region>), what is
// done about them (a resend once, the region kept; else a note for the message), region names
// checked as host labels, and the bucket regions a Loader's resolutions share.
#include "io/remote/region_redirect.h"

#include <gtest/gtest.h>

#include <string>

#include "io/remote/bucket_regions.h"
#include "io/remote/credentials.h"
#include "io/remote/s3_xml.h"
#include "tests/io/remote/credential_test_util.h"

namespace feedrate::io {
namespace {

ResponseHead head_of(long status, const std::string& bucket_region = "") {
  ResponseHead head;
  head.status = status;
  head.bucket_region = bucket_region;
  return head;
}

S3ErrorBody error_of(const std::string& code, const std::string& region = "") {
  S3ErrorBody body;
  body.code = code;
  body.region = region;
  return body;
}

TEST(RegionRedirect, S3sWrongRegionAnswersNameTheBucketsRegion) {
  EXPECT_EQ(answered_region(head_of(301, "eu-west-1"), error_of("PermanentRedirect"), false),
            "eu-west-1");
  EXPECT_EQ(
      answered_region(head_of(400), error_of("AuthorizationHeaderMalformed", "ap-south-1"), false),
      "ap-south-1");
  EXPECT_EQ(answered_region(head_of(301, "eu-west-1"), {}, true), "eu-west-1");
  EXPECT_EQ(answered_region(head_of(400, "eu-west-1"), {}, true), "eu-west-1");
  EXPECT_EQ(answered_region(head_of(307, "us-west-2"), error_of("TemporaryRedirect"), false),
            "us-west-2");
  EXPECT_EQ(answered_region(head_of(400, "af-south-1"),
                            error_of("IllegalLocationConstraintException"), false),
            "af-south-1");
  // The header wins over the body, as in botocore's get_bucket_region.
  EXPECT_EQ(
      answered_region(head_of(301, "eu-west-1"), error_of("PermanentRedirect", "x-other"), false),
      "eu-west-1");
}

TEST(RegionRedirect, OtherAnswersAreNotAboutTheRegion) {
  EXPECT_FALSE(answered_region(head_of(403, "eu-west-1"), error_of("AccessDenied"), false));
  EXPECT_FALSE(answered_region(head_of(404), error_of("NoSuchKey"), true));
  // A GET's 400 says more in its body; a Malformed header without a region is another problem.
  EXPECT_FALSE(answered_region(head_of(400, "eu-west-1"), error_of("InvalidArgument"), false));
  EXPECT_FALSE(answered_region(head_of(400), error_of("AuthorizationHeaderMalformed"), false));
}

TEST(RegionRedirect, ARegionMustBeAHostLabel) {
  EXPECT_TRUE(is_region_name("eu-west-1"));
  EXPECT_TRUE(is_region_name("auto"));
  for (const char* bad :
       {"", "-eu", "eu-", "123", "eu.west", "a/b", "evil.example.com:80", "eu west"}) {
    EXPECT_FALSE(is_region_name(bad)) << bad;
  }
  EXPECT_FALSE(is_region_name(std::string(64, 'a')));
  // Named, but not a region: a wrong-region answer without a usable one.
  EXPECT_EQ(answered_region(head_of(301, "evil.example.com"), {}, true), "");
}

S3Settings aws_settings() {
  S3Settings settings;
  settings.credentials = CredentialProvider::fixed({"AKIA", Secret("s"), {}}, "test");
  return settings;
}

TEST(RegionRedirect, AWrongRegionAnswerIsFollowedOnceAndKept) {
  const auto settings = aws_settings();
  const RemoteEndpoint endpoint(settings, {});
  const auto target = endpoint.object_target(parse_url("s3://laion/part-0.tar"));
  const auto redirect = follow_region(endpoint, target, head_of(301, "eu-west-1"),
                                      error_of("PermanentRedirect"), false);
  ASSERT_TRUE(redirect.resend);
  EXPECT_EQ(redirect.resend->http_url, "https://laion.s3.eu-west-1.amazonaws.com/part-0.tar");
  EXPECT_EQ(redirect.resend->region, "eu-west-1");
  EXPECT_EQ(redirect.resend->redirected_from, "us-east-1");
  EXPECT_EQ(settings.bucket_regions->find("laion"), "eu-west-1");
  EXPECT_FALSE(settings.bucket_regions->find("other"));

  // The resent request answered so again fails, naming the bucket and the regions.
  const auto again = follow_region(endpoint, *redirect.resend, head_of(301, "ap-south-1"),
                                   error_of("PermanentRedirect"), false);
  EXPECT_FALSE(again.resend);
  EXPECT_EQ(again.note,
            " (bucket 'laion': sent to region 'us-east-1', redirected by S3 to region "
            "'eu-west-1', and answered there that the bucket is in region 'ap-south-1'; a "
            "request follows one redirect)");
  EXPECT_EQ(settings.bucket_regions->find("laion"), "eu-west-1");
}

TEST(RegionRedirect, WithoutANamedRegionTheFailureSaysWhatToSet) {
  const auto settings = aws_settings();
  const RemoteEndpoint endpoint(settings, {});
  const auto target = endpoint.object_target(parse_url("s3://laion/k"));
  const auto redirect = follow_region(endpoint, target, head_of(301), {}, false);
  EXPECT_FALSE(redirect.resend);
  EXPECT_EQ(redirect.note,
            " (S3 says bucket 'laion' is not in region 'us-east-1' and names no region: set "
            "AWS_REGION to the bucket's)");
  EXPECT_FALSE(settings.bucket_regions->find("laion"));
  // Not about the region: no note.
  EXPECT_EQ(follow_region(endpoint, target, head_of(403), error_of("AccessDenied"), false).note,
            "");
}

TEST(RegionRedirect, ARequestThatWouldGoOutUnchangedIsNotResent) {
  S3Settings custom;
  custom.endpoint = "http://127.0.0.1:9000";
  custom.path_style = true;  // and unsigned: the region changes neither URL nor signature
  const RemoteEndpoint endpoint(custom, {});
  const auto target = endpoint.object_target(parse_url("s3://bkt/k"));
  const auto redirect = follow_region(endpoint, target, head_of(301, "eu-west-1"), {}, true);
  EXPECT_FALSE(redirect.resend);
  EXPECT_EQ(redirect.note,
            " (S3 says bucket 'bkt' is in region 'eu-west-1', which does not change this request)");
  // The region the request went to, named again, is no redirect either.
  const auto signed_endpoint = RemoteEndpoint(aws_settings(), {});
  const auto same =
      follow_region(signed_endpoint, signed_endpoint.object_target(parse_url("s3://bkt/k")),
                    head_of(301, "us-east-1"), {}, false);
  EXPECT_FALSE(same.resend);
}

TEST(RegionRedirect, HttpUrlsHaveNoBucketToRedirect) {
  const RemoteEndpoint endpoint(aws_settings(), {});
  const auto target = endpoint.object_target(parse_url("https://host/a.tar"));
  const auto redirect = follow_region(endpoint, target, head_of(301, "eu-west-1"), {}, false);
  EXPECT_FALSE(redirect.resend);
  EXPECT_EQ(redirect.note, "");
}

TEST(RegionRedirect, ALoadersResolutionsShareTheEndpointsBucketRegions) {
  test_support::Environment environment;
  environment.set("HOME", "/nonexistent");
  CredentialChainOptions reuse;
  reuse.reuse = true;
  const auto first = resolve_s3_settings(environment.lookup(), reuse);
  const auto second = resolve_s3_settings(environment.lookup(), reuse);
  EXPECT_EQ(first.bucket_regions, second.bucket_regions);
  environment.set("AWS_ENDPOINT_URL", "http://127.0.0.1:9");
  EXPECT_NE(resolve_s3_settings(environment.lookup(), reuse).bucket_regions, first.bucket_regions);
  environment.unset("AWS_ENDPOINT_URL");
  EXPECT_NE(resolve_s3_settings(environment.lookup()).bucket_regions, first.bucket_regions);
}

}  // namespace
}  // namespace feedrate::io
