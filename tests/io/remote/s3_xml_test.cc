// S3's XML: error bodies (S3's, STS's and moto's STS's) and ListObjectsV2 pages.
#include "io/remote/s3_xml.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace feedrate::io {
namespace {

TEST(S3Xml, ReadsErrorBodies) {
  const auto error = parse_s3_error(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><Message>The "
      "specified key does not exist.</Message><Key>a/b</Key></Error>");
  EXPECT_EQ(error.code, "NoSuchKey");
  EXPECT_EQ(error.message, "The specified key does not exist.");
  // STS's wrapping, and moto's.
  EXPECT_EQ(parse_s3_error("<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
                           "<Message>no</Message></Error></ErrorResponse>")
                .code,
            "AccessDenied");
  EXPECT_EQ(parse_s3_error("<ErrorResponse><Errors><Error><Code>SignatureDoesNotMatch</Code>"
                           "</Error></Errors></ErrorResponse>")
                .code,
            "SignatureDoesNotMatch");
  EXPECT_EQ(parse_s3_error("").code, "");
  EXPECT_EQ(parse_s3_error("<html>502 Bad Gateway</html>").code, "");
  EXPECT_EQ(parse_s3_error("not xml at all <").code, "");
}

TEST(S3Xml, ReadsListPages) {
  const auto page = parse_list_page(
      "<?xml version=\"1.0\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><IsTruncated>true</IsTruncated>"
      "<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>"
      "<Contents><Key>train/a&amp;b.tar</Key><Size>1048576</Size>"
      "<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag></Contents>"
      "<Contents><Key>train/c.tar</Key><Size>0</Size><ETag>\"x-2\"</ETag></Contents>"
      "</ListBucketResult>");
  ASSERT_EQ(page.objects.size(), 2u);
  EXPECT_EQ(page.objects[0].key, "train/a&b.tar");
  EXPECT_EQ(page.objects[0].size, 1048576u);
  EXPECT_EQ(page.objects[0].etag, "\"9b2cf535f27731c974343645a3985328\"");
  EXPECT_EQ(page.objects[1].size, 0u);
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.next_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
  const auto last =
      parse_list_page("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  EXPECT_TRUE(last.objects.empty());
  EXPECT_FALSE(last.truncated);
}

TEST(S3Xml, RefusesMalformedPages) {
  EXPECT_THROW(parse_list_page("<ListBucketResult>"), std::runtime_error);
  EXPECT_THROW(parse_list_page("<Error><Code>AccessDenied</Code></Error>"), std::runtime_error);
  EXPECT_THROW(parse_list_page("<ListBucketResult><IsTruncated>true</IsTruncated>"
                               "</ListBucketResult>"),
               std::runtime_error);
  EXPECT_THROW(parse_list_page("<ListBucketResult><Contents><Key>k</Key><Size>-1</Size>"
                               "</Contents></ListBucketResult>"),
               std::runtime_error);
}

}  // namespace
}  // namespace feedrate::io
