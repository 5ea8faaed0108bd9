// Response heads as libcurl hands their lines over (Retry-After among them), and the errors
// final statuses become.
#include "io/remote/http_response.h"

#include <gtest/gtest.h>

#include "io/remote/remote_error.h"

namespace feedrate::io {
namespace {

ResponseHead head_of(std::initializer_list<const char*> lines) {
  ResponseHead head;
  for (const char* line : lines) head.parse_line(line);
  return head;
}

TEST(HttpResponse, ReadsTheHeadersThatMatter) {
  const auto head =
      head_of({"HTTP/1.1 206 Partial Content\r\n", "content-range: bytes 100-199/1000\r\n",
               "Content-Length: 100\r\n", "ETag: \"abc-1\"\r\n", "\r\n"});
  EXPECT_EQ(head.status, 206);
  EXPECT_EQ(head.content_length, 100u);
  EXPECT_TRUE(head.has_range);
  EXPECT_EQ(head.range_first, 100u);
  EXPECT_EQ(head.range_last, 199u);
  EXPECT_EQ(head.range_total, 1000u);
  EXPECT_EQ(head.etag, "\"abc-1\"");
}

TEST(HttpResponse, ANewStatusLineStartsAFreshHead) {
  const auto head = head_of({"HTTP/1.1 100 Continue\r\n", "ETag: \"old\"\r\n",
                             "HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n"});
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.etag, "");
  EXPECT_FALSE(head.has_range);
}

TEST(HttpResponse, ReadsRetryAfterAsSecondsOrAnHttpDate) {
  const std::time_t date = 1'792'567'680;  // Wed, 21 Oct 2026 07:28:00 GMT
  EXPECT_EQ(parse_retry_after("120", date), std::chrono::seconds(120));
  EXPECT_EQ(parse_retry_after(" 0 ", date), std::chrono::seconds(0));
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT", date - 30),
            std::chrono::seconds(30));
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT", date + 5),
            std::chrono::seconds(0));  // already past
  EXPECT_FALSE(parse_retry_after("", date));
  EXPECT_FALSE(parse_retry_after("-5", date));
  EXPECT_FALSE(parse_retry_after("soon, please", date));
}

TEST(HttpResponse, OnlyThrottledAnswersSetTheServersRetryDelay) {
  EXPECT_EQ(server_retry_delay(head_of({"HTTP/1.1 503 Slow Down", "Retry-After: 3"})),
            std::chrono::seconds(3));
  EXPECT_EQ(server_retry_delay(head_of({"HTTP/1.1 429 Too Many", "retry-after: 7"})),
            std::chrono::seconds(7));
  EXPECT_EQ(server_retry_delay(head_of({"HTTP/1.1 500 Error", "Retry-After: 3"})),
            std::chrono::seconds(0));
  EXPECT_EQ(server_retry_delay(head_of({"HTTP/1.1 503 Slow Down"})), std::chrono::seconds(0));
  // A new status line forgets the last head's Retry-After.
  EXPECT_FALSE(head_of({"HTTP/1.1 503 x", "Retry-After: 3", "HTTP/1.1 503 y"}).retry_after);
}

TEST(HttpResponse, IgnoresWeakETagsAndMalformedRanges) {
  EXPECT_EQ(head_of({"HTTP/1.1 200 OK", "ETag: W/\"weak\""}).etag, "");
  EXPECT_FALSE(head_of({"HTTP/1.1 206 x", "Content-Range: bytes 9-1/10"}).has_range);
  EXPECT_FALSE(head_of({"HTTP/1.1 206 x", "Content-Range: items 0-1/10"}).has_range);
  const auto unknown_total = head_of({"HTTP/2 206", "Content-Range: bytes 0-9/*"});
  EXPECT_TRUE(unknown_total.has_range);
  EXPECT_FALSE(unknown_total.range_total);
  EXPECT_EQ(unknown_total.status, 206);
}

TEST(HttpResponse, FinalStatusesBecomeTypedErrors) {
  const S3ErrorBody denied{"AccessDenied", "Access Denied", ""};
  const auto forbidden = status_failure("GET s3://b/k bytes 0-9", 403, denied, "profile 'x' in /f");
  EXPECT_EQ(forbidden.code, make_error_code(RemoteErrc::kAccessDenied));
  EXPECT_EQ(forbidden.message,
            "GET s3://b/k bytes 0-9: HTTP 403 AccessDenied: Access Denied (credentials: profile "
            "'x' in /f)");
  const auto missing = status_failure("HEAD s3://b/k", 404, {"NoSuchKey", "", ""}, "src");
  EXPECT_EQ(missing.code, make_error_code(RemoteErrc::kNotFound));
  EXPECT_EQ(missing.message, "HEAD s3://b/k: HTTP 404 NoSuchKey");
  const auto changed = status_failure("GET u", 412, {}, "src");
  EXPECT_EQ(changed.code, make_error_code(RemoteErrc::kObjectChanged));
  EXPECT_NE(changed.message.find("the object changed"), std::string::npos);
  EXPECT_EQ(status_failure("GET u", 416, {}, "s").code,
            make_error_code(RemoteErrc::kRangeNotSatisfiable));
  EXPECT_EQ(status_failure("GET u", 400, {}, "s").code, make_error_code(RemoteErrc::kHttpStatus));
  EXPECT_EQ(make_error_code(RemoteErrc::kObjectChanged).message(), "the object changed");
}

TEST(HttpResponse, RetriesTransientCurlErrors) {
  EXPECT_EQ(retry_cause_of_curl(CURLE_OPERATION_TIMEDOUT), RetryCause::kTimeout);
  EXPECT_EQ(retry_cause_of_curl(CURLE_PARTIAL_FILE), RetryCause::kShortBody);
  EXPECT_EQ(retry_cause_of_curl(CURLE_RECV_ERROR), RetryCause::kConnection);
  EXPECT_EQ(retry_cause_of_curl(CURLE_COULDNT_CONNECT), RetryCause::kConnection);
  EXPECT_EQ(retry_cause_of_curl(CURLE_GOT_NOTHING), RetryCause::kConnection);
  EXPECT_FALSE(retry_cause_of_curl(CURLE_PEER_FAILED_VERIFICATION));
  EXPECT_FALSE(retry_cause_of_curl(CURLE_COULDNT_RESOLVE_HOST));
}

}  // namespace
}  // namespace feedrate::io
