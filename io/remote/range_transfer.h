// One ranged GET of a RangeFetcher (io/remote/range_fetcher.h) across its attempts: FetchJob is
// the request with its progress, RangeTransfer the reusable easy handle that runs one attempt
// of a job and judges how it ended. An attempt asks for the bytes the job still lacks
// ([offset + delivered, offset + size)), with If-Match set to the ETag the caller gave or the one
// the first answer carried, so that resumed bytes come from the same version of the object.
// Its body goes straight into the job's destination; a 200 answer (the server ignored Range) is
// skipped up to the range and cut off after it. Each attempt goes to the region kept for the
// bucket when it starts (a job queued before S3 named it goes there too); an answer that the
// bucket is in another region points the job at that region, to be started again at once
// (io/remote/region_redirect.h).
// Each body byte that arrives is counted on the fetcher's FetchMeter as it arrives.
// Thread-safety: owned by the fetcher's thread.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "io/clock.h"
#include "io/remote/curl_handle.h"
#include "io/remote/endpoint.h"
#include "io/remote/fetch_destination.h"
#include "io/remote/fetch_request.h"
#include "io/remote/http_response.h"
#include "io/remote/retry_policy.h"

namespace feedrate::io {

class FetchMeter;

struct FetchJob {
  FetchRequest request;
  FetchDestination destination;  // request.dest, or the scatter submit() was given
  RequestTarget target;          // where the next attempt goes
  std::string etag;  // sent as If-Match from the second attempt on (or from the first, if given)
  std::size_t delivered = 0;
  unsigned attempts = 0;
  Clock::time_point first_attempt;  // on the fetcher's clock
  Clock::time_point retry_at;
  std::string last_failure;  // why the latest attempt was retried
};

// What an attempt came to.
struct AttemptOutcome {
  // kRedirect: the job's target now names the bucket's region; start it again now.
  enum class Kind { kDone, kRetry, kFail, kRedirect } kind = Kind::kDone;
  RetryCause cause = RetryCause::kServerError;  // kRetry
  std::chrono::seconds server_delay{0};         // kRetry: the answer's Retry-After (429, 503)
  RemoteFailure failure;  // kFail: the error; kRetry: the code and message if retries run out
};

// libcurl's timings of an attempt.
struct AttemptMetrics {
  std::chrono::microseconds time_to_first_byte{0};  // CURLINFO_STARTTRANSFER_TIME_T
  std::chrono::microseconds total{0};               // CURLINFO_TOTAL_TIME_T
  long new_connections = 0;                         // CURLINFO_NUM_CONNECTS
  std::size_t bytes = 0;                            // delivered by this attempt
};

class RangeTransfer {
 public:
  explicit RangeTransfer(FetchMeter& meter);
  RangeTransfer(const RangeTransfer&) = delete;
  RangeTransfer& operator=(const RangeTransfer&) = delete;

  // Sets the handle up for the next attempt of `job`, which it holds until take_job(), also when
  // it throws (CredentialsUnavailable from the endpoint); `now`, on the fetcher's clock, is the
  // job's first attempt's start when this is it.
  void start(std::unique_ptr<FetchJob> job, const RemoteEndpoint& endpoint, Clock::time_point now);
  // Judges the attempt libcurl reported done with `result`.
  AttemptOutcome finish(CURLcode result, const RemoteEndpoint& endpoint);
  AttemptMetrics metrics() const;
  std::unique_ptr<FetchJob> take_job() { return std::move(job_); }
  CURL* easy() const { return easy_.get(); }
  // "GET URL bytes A-B" of the job held, for messages.
  std::string describe() const;

 private:
  enum class Body { kUnseen, kData, kError, kRejected };
  static std::size_t on_body(char* data, std::size_t size, std::size_t count, void* self);
  std::size_t take_body(const char* data, std::size_t size);
  void begin_body();

  FetchMeter& meter_;
  CurlEasy easy_;
  CurlList headers_;
  std::unique_ptr<FetchJob> job_;
  ResponseHead head_;
  Body body_ = Body::kUnseen;
  std::uint64_t want_first_ = 0;   // the first byte this attempt asked for
  std::uint64_t skip_ = 0;         // bytes of a 200 body before the range
  std::size_t attempt_start_ = 0;  // job_->delivered when the attempt began
  bool cut_off_ = false;           // stopped a body that went past the range
  std::string error_body_;
  char error_buffer_[CURL_ERROR_SIZE] = {};
};

}  // namespace feedrate::io
