// Fetches byte ranges of remote objects (s3://, http://, https://) into caller-owned buffers,
// many at a time, on one libcurl multi handle.
//
// Thread-safety: a RangeFetcher is driven by one thread at a time: submit(), poll(), pending()
// and stats() belong to that thread. wake() may be called from any thread (it interrupts a
// poll() that is waiting). Different fetchers may run on different threads.
//
// Time: the statistics' busy time, the retries' delays and budget, and poll()'s timeout are on
// the options' clock (io/clock.h): with nothing on the wire, poll() waits on it for the next
// retry, so that a fake clock's time moves to the retry at once; with transfers running it waits
// for the network, which the clock does not move. libcurl times each attempt itself (time to
// first byte, transfer time: io/remote/fetch_stats.h), in real time whatever the clock.
//
// The design point is latency: a store answers after tens to hundreds of milliseconds, so the
// caller keeps many requests in flight and never waits for a whole batch. submit() only queues;
// up to `max_in_flight` transfers run at once over kept-alive connections (at most
// `max_host_connections` to one host), and poll() drives them and hands back every request that
// has finished, in completion order, while the others keep going. Requests may be submitted at
// any time, also between polls with others in flight.
//
// Request lifecycle and error strategy:
//   * a request is a ranged GET of [offset, offset + dest.size()) with If-Match: if_match when
//     given (with a scatter, the range ends with its last piece); a zero-size request completes
//     at once;
//   * the body goes straight into `dest`, or piece by piece into the scatter's buffers (the
//     bytes between pieces dropped as they pass: io/remote/fetch_destination.h), with no copy
//     between; a 200 answer (the server ignored Range) is skipped to the range and cut off
//     after it;
//   * transient failures are retried with full-jitter exponential backoff (io/remote/
//     retry_policy.h): HTTP 5xx, 503 SlowDown and 429, refused or reset connections, connect
//     and low-speed timeouts, and a body shorter than its Content-Length or than the range (a
//     429 or 503 with Retry-After waits at least that long, at most retry.max_server_delay); a
//     retry asks only for the bytes still missing, with If-Match on the ETag the bytes so far
//     came with, so no byte is duplicated or dropped;
//   * an answer that the object's bucket is in another region (S3's 301 PermanentRedirect, a 400
//     AuthorizationHeaderMalformed naming the region, ...) sends the request again at once to
//     that region, once, and keeps the region for the bucket, so that later requests of these
//     settings (this fetcher's, the object store's, other threads') go there straight
//     (io/remote/region_redirect.h); the resend is an attempt;
//   * 403 and 404 (and 401, 412, 416, any other 4xx) fail at once; 412 is RemoteErrc::
//     kObjectChanged;
//   * a failure is data (FetchResult::error and a message naming the URL, the range, the HTTP
//     status, S3's error Code and, for denied access, where the credentials came from), never
//     an exception: one bad object does not cost the other requests.
// `dest` (or a scatter piece) is written only until its request is returned by poll(), or until the
// fetcher is destroyed (which abandons the requests not yet returned), and must stay valid until
// then.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "io/clock.h"
#include "io/remote/credentials.h"
#include "io/remote/curl_handle.h"
#include "io/remote/endpoint.h"
#include "io/remote/fetch_destination.h"
#include "io/remote/fetch_request.h"
#include "io/remote/fetch_stats.h"
#include "io/remote/range_transfer.h"
#include "io/remote/retry_policy.h"

namespace feedrate::io {

struct RangeFetcherOptions {
  unsigned max_in_flight = 64;        // transfers at once, 1..1024
  unsigned max_host_connections = 0;  // per host; 0: max_in_flight
  RetryOptions retry;
  TransferOptions transfer;
  std::uint64_t jitter_seed = 0x5eed;  // the backoff's random draws
  // What requests are timed and retried by (the meter's busy time, the backoff's waits, poll()'s
  // timeout); outlives the fetcher; null: Clock::real(). The read-ahead passes the pipeline's.
  Clock* clock = nullptr;
};
// Throws std::invalid_argument for a bound out of range (and see the nested validate()s).
void validate(const RangeFetcherOptions& options);

struct FetchResult {
  std::uint64_t tag = 0;
  std::size_t bytes = 0;  // bytes of the range delivered: all of them when !error
  unsigned attempts = 0;
  std::error_code error;  // RemoteErrc (io/remote/remote_error.h)
  std::string message;    // empty when !error
};

class RangeFetcher {
 public:
  // Throws for invalid options, or when libcurl cannot give its handles. The statistics go to
  // `meter` when given, which must outlive the fetcher and is used by its thread only; so one
  // meter carries them on over the fetchers a caller makes one after another. Else the fetcher
  // keeps its own.
  RangeFetcher(S3Settings settings, const RangeFetcherOptions& options,
               FetchMeter* meter = nullptr);
  ~RangeFetcher();
  RangeFetcher(const RangeFetcher&) = delete;
  RangeFetcher& operator=(const RangeFetcher&) = delete;

  // Queues a request; a URL that cannot be read fails as the request's result.
  void submit(FetchRequest request);
  // The range [offset, offset + the scatter's end) into the scatter's pieces
  // (io/remote/fetch_destination.h: ascending, the first at 0; std::invalid_argument otherwise);
  // request.dest is not used.
  void submit(FetchRequest request, std::vector<FetchPiece> scatter);
  // Drives the transfers for up to `timeout` and appends the requests that finished to
  // `completed`; returns as soon as at least one has, or when none is left. Returns how many it
  // appended. A wake() ends it early too.
  std::size_t poll(std::chrono::milliseconds timeout, std::vector<FetchResult>& completed);
  // Makes a waiting poll() return early. Any thread.
  void wake();
  // Submitted and not yet returned.
  std::size_t pending() const { return pending_; }
  FetchStats stats() const { return meter_.stats(clock_.now()); }

 private:
  void submit(FetchRequest request, FetchDestination destination);
  // Starts the queued requests there is room for; one whose credentials expired fails into
  // `completed`.
  void start_ready(Clock::time_point now, std::vector<FetchResult>& completed);
  void reap(std::vector<FetchResult>& completed);
  void finish_job(std::unique_ptr<FetchJob> job, RemoteFailure failure,
                  std::vector<FetchResult>& completed);
  // The earlier of `deadline` and the next retry's time.
  Clock::time_point next_due(Clock::time_point deadline) const;
  // Waits for the network until `until`, or a wake().
  void wait_for_network(Clock::time_point until);
  // Waits on the clock until `until`, or a wake(): nothing is on the wire.
  void wait_on_clock(Clock::time_point until);

  RangeFetcherOptions options_;
  Clock& clock_;
  RemoteEndpoint endpoint_;
  Backoff backoff_;
  CurlMulti multi_;
  std::vector<std::unique_ptr<RangeTransfer>> transfers_;
  std::vector<RangeTransfer*> idle_;
  std::deque<std::unique_ptr<FetchJob>> queued_;    // retries at the front, when due
  std::vector<std::unique_ptr<FetchJob>> waiting_;  // retries in their backoff delay
  std::vector<FetchResult> immediate_;              // finished in submit(): zero sizes, bad URLs
  std::size_t pending_ = 0;
  FetchMeter own_meter_;
  FetchMeter& meter_;  // own_meter_ or the caller's
  std::atomic<bool> woken_{false};
  std::mutex wake_mutex_;  // with wake_: a wake() reaches a wait on the clock
  std::condition_variable wake_;
};

}  // namespace feedrate::io
