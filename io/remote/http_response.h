// What one HTTP answer said, as libcurl hands it over, and how a failed answer becomes an error:
// the response head seen by CURLOPT_HEADERFUNCTION (status, Content-Length, Content-Range, ETag,
// S3's x-amz-bucket-region),
// the error code and message for a final status, the wait a throttled answer asks for
// (Retry-After), and the retry cause of a libcurl error.
// Thread-safety: values and pure functions; a ResponseHead belongs to its transfer.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "io/remote/retry_policy.h"
#include "io/remote/s3_xml.h"

namespace feedrate::io {

struct ResponseHead {
  long status = 0;
  std::optional<std::uint64_t> content_length;
  // Content-Range: bytes FIRST-LAST/TOTAL (total absent when the server wrote '*').
  bool has_range = false;
  std::uint64_t range_first = 0;
  std::uint64_t range_last = 0;
  std::optional<std::uint64_t> range_total;
  std::string etag;  // strong ETags only, with their quotes; weak ones cannot serve If-Match
  std::optional<std::chrono::seconds> retry_after;  // Retry-After, as a wait from its arrival
  std::string bucket_region;  // x-amz-bucket-region: where S3 says the bucket is; empty: absent

  // Reads one header line; a status line starts a new head (after a 100 Continue, a redirect).
  void parse_line(std::string_view line);
};

// A Retry-After value as the wait it asks for at `now`: delay-seconds ("120") or an HTTP-date
// ("Wed, 21 Oct 2026 07:28:00 GMT", read by libcurl's curl_getdate; a date already past is no
// wait). nullopt when the value is neither.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value, std::time_t now);

// The wait a 429 or 503 answer asks for with Retry-After before the request is tried again; zero
// for another status or without the header.
std::chrono::seconds server_retry_delay(const ResponseHead& head);

// A CURLOPT_HEADERFUNCTION whose CURLOPT_HEADERDATA is a ResponseHead.
std::size_t read_header_line(char* data, std::size_t size, std::size_t count, void* head);

// Keeps at most this much of an error body, enough for any S3 <Error> document.
inline constexpr std::size_t kMaxErrorBody = 64 * 1024;

struct RemoteFailure {
  std::error_code code;
  std::string message;
};

// The error for a final (not retried) HTTP status. `what` names the operation ("GET s3://b/k
// bytes 0-99"); the message adds the status, S3's Code and Message, and for 401/403 where the
// credentials came from (`credentials_source`).
RemoteFailure status_failure(std::string_view what, long status, const S3ErrorBody& body,
                             const std::string& credentials_source);
// "HTTP 503 SlowDown: Please reduce your request rate." (the Code and Message when there are).
std::string describe_status(long status, const S3ErrorBody& body);

// The retry cause of a libcurl error, nullopt for one that will not pass by retrying (a TLS
// certificate, an unknown host, a malformed URL).
std::optional<RetryCause> retry_cause_of_curl(CURLcode code);

}  // namespace feedrate::io
