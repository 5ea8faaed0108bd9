#include "io/remote/range_transfer.h"

#include <algorithm>
#include <cstring>

#include "io/remote/fetch_stats.h"
#include "io/remote/region_redirect.h"
#include "io/remote/remote_error.h"

namespace feedrate::io {

RangeTransfer::RangeTransfer(FetchMeter& meter) : meter_(meter), easy_(new_easy()) {}

void RangeTransfer::start(std::unique_ptr<FetchJob> job, const RemoteEndpoint& endpoint,
                          Clock::time_point now) {
  job_ = std::move(job);
  head_ = ResponseHead();
  body_ = Body::kUnseen;
  skip_ = 0;
  cut_off_ = false;
  error_body_.clear();
  error_buffer_[0] = '\0';
  attempt_start_ = job_->delivered;
  want_first_ = job_->request.offset + job_->delivered;
  const std::uint64_t last = job_->request.offset + job_->destination.size() - 1;

  CURL* easy = easy_.get();
  curl_easy_reset(easy);
  headers_.reset();
  std::vector<std::string> extra;
  if (!job_->etag.empty()) extra.push_back("If-Match: " + job_->etag);
  job_->target = endpoint.refreshed(job_->target);
  endpoint.configure(easy, job_->target, headers_, extra);
  const std::string range = std::to_string(want_first_) + "-" + std::to_string(last);
  curl_easy_setopt(easy, CURLOPT_RANGE, range.c_str());  // libcurl copies it
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, read_header_line);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &head_);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, this);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer_);
  curl_easy_setopt(easy, CURLOPT_PRIVATE, this);
  if (job_->attempts++ == 0) job_->first_attempt = now;
}

std::size_t RangeTransfer::on_body(char* data, std::size_t size, std::size_t count, void* self) {
  return static_cast<RangeTransfer*>(self)->take_body(data, size * count);
}

void RangeTransfer::begin_body() {
  if (head_.status == 206) {
    // The range must start where this attempt asked; a shorter one is judged at the end.
    body_ = head_.has_range && head_.range_first == want_first_ ? Body::kData : Body::kRejected;
  } else if (head_.status == 200) {
    body_ = Body::kData;  // the whole object: skip to the range
    skip_ = want_first_;
  } else {
    body_ = Body::kError;
    return;
  }
  if (body_ == Body::kData && job_->etag.empty()) job_->etag = head_.etag;
}

std::size_t RangeTransfer::take_body(const char* data, std::size_t size) {
  meter_.arrived(size);
  if (body_ == Body::kUnseen) begin_body();
  if (body_ == Body::kRejected) return 0;  // aborts the transfer
  if (body_ == Body::kError) {
    error_body_.append(data, std::min(size, kMaxErrorBody - error_body_.size()));
    return size;
  }
  const auto skipped = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, size));
  skip_ -= skipped;
  const std::size_t copied = static_cast<std::size_t>(
      std::min<std::uint64_t>(size - skipped, job_->destination.size() - job_->delivered));
  job_->destination.deliver(job_->delivered,
                            {reinterpret_cast<const std::byte*>(data + skipped), copied});
  job_->delivered += copied;
  if (skipped + copied < size) {
    cut_off_ = true;  // past the range: the write error ends the transfer here
    return skipped + copied;
  }
  return size;
}

std::string RangeTransfer::describe() const {
  const auto& request = job_->request;
  std::string text = "GET " + request.url + " bytes " + std::to_string(request.offset) + "-" +
                     std::to_string(request.offset + job_->destination.size() - 1);
  if (request.url != job_->target.http_url) text += " (" + job_->target.http_url + ")";
  return text;
}

AttemptOutcome RangeTransfer::finish(CURLcode result, const RemoteEndpoint& endpoint) {
  AttemptOutcome outcome;
  const auto& request = job_->request;
  if (job_->delivered == job_->destination.size()) return outcome;  // whatever came after the range
  outcome.kind = AttemptOutcome::Kind::kFail;
  if (body_ == Body::kRejected) {
    outcome.failure = {RemoteErrc::kBadResponse,
                       describe() + ": HTTP 206 for other bytes than asked (asked from " +
                           std::to_string(want_first_) + ", got Content-Range from " +
                           std::to_string(head_.range_first) + ")"};
    return outcome;
  }
  if (result != CURLE_OK && !(result == CURLE_WRITE_ERROR && cut_off_)) {
    std::string reason = curl_easy_strerror(result);
    if (error_buffer_[0] != '\0') reason += " (" + std::string(error_buffer_) + ")";
    const auto cause = retry_cause_of_curl(result);
    const auto code =
        cause == RetryCause::kShortBody ? RemoteErrc::kShortBody : RemoteErrc::kTransfer;
    outcome.failure = {code, describe() + ": " + reason};
    if (cause) {
      outcome.kind = AttemptOutcome::Kind::kRetry;
      outcome.cause = *cause;
    }
    return outcome;
  }
  if (body_ == Body::kData || body_ == Body::kUnseen) {
    if (head_.status == 200 || head_.status == 206) {
      // A complete answer that ended before the range did: the object is shorter than the range
      // (final), or the body was cut short (retried for the rest).
      const auto end = request.offset + job_->destination.size();
      const auto size = head_.status == 206 ? head_.range_total : head_.content_length;
      if (size && *size < end) {
        outcome.failure = {RemoteErrc::kRangeNotSatisfiable,
                           describe() + ": the object is " + std::to_string(*size) +
                               " bytes, the range ends at " + std::to_string(end)};
        return outcome;
      }
      outcome.kind = AttemptOutcome::Kind::kRetry;
      outcome.cause = RetryCause::kShortBody;
      outcome.failure = {RemoteErrc::kShortBody,
                         describe() + ": the body ended after " + std::to_string(job_->delivered) +
                             " of " + std::to_string(job_->destination.size()) + " bytes"};
      return outcome;
    }
  }
  const auto body = parse_s3_error(error_body_);
  if (const auto cause = retry_cause_of_status(head_.status, body.code)) {
    outcome.kind = AttemptOutcome::Kind::kRetry;
    outcome.cause = *cause;
    outcome.server_delay = server_retry_delay(head_);
    outcome.failure = {RemoteErrc::kHttpStatus,
                       describe() + ": " + describe_status(head_.status, body)};
    return outcome;
  }
  auto redirect = follow_region(endpoint, job_->target, head_, body, false);
  if (redirect.resend) {
    job_->target = std::move(*redirect.resend);
    outcome.kind = AttemptOutcome::Kind::kRedirect;
    return outcome;
  }
  outcome.failure = status_failure(describe(), head_.status, body, endpoint.credentials_source());
  outcome.failure.message += redirect.note;
  return outcome;
}

AttemptMetrics RangeTransfer::metrics() const {
  AttemptMetrics metrics;
  curl_off_t first_byte = 0;
  curl_off_t total = 0;
  curl_easy_getinfo(easy_.get(), CURLINFO_STARTTRANSFER_TIME_T, &first_byte);
  curl_easy_getinfo(easy_.get(), CURLINFO_TOTAL_TIME_T, &total);
  curl_easy_getinfo(easy_.get(), CURLINFO_NUM_CONNECTS, &metrics.new_connections);
  metrics.time_to_first_byte = std::chrono::microseconds(first_byte);
  metrics.total = std::chrono::microseconds(total);
  metrics.bytes = job_ ? job_->delivered - attempt_start_ : 0;
  return metrics;
}

}  // namespace feedrate::io
