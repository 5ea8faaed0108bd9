#include "io/remote/range_fetcher.h"

#include <algorithm>
#include <stdexcept>

#include "io/remote/remote_error.h"
#include "io/remote/url.h"

namespace feedrate::io {

void validate(const RangeFetcherOptions& options) {
  if (options.max_in_flight < 1 || options.max_in_flight > 1024) {
    throw std::invalid_argument("remote: max_in_flight must be 1..1024");
  }
  if (options.max_host_connections > 1024) {
    throw std::invalid_argument("remote: max_host_connections must be 0..1024");
  }
  validate(options.retry);
  validate(options.transfer);
}

RangeFetcher::RangeFetcher(S3Settings settings, const RangeFetcherOptions& options,
                           FetchMeter* meter)
    : options_(options),
      clock_(options.clock != nullptr ? *options.clock : Clock::real()),
      endpoint_(std::move(settings), options.transfer),
      backoff_(options.retry, options.jitter_seed),
      multi_(new_multi()),
      meter_(meter != nullptr ? *meter : own_meter_) {
  validate(options_);
  const long per_host =
      options_.max_host_connections == 0 ? options_.max_in_flight : options_.max_host_connections;
  curl_multi_setopt(multi_.get(), CURLMOPT_MAX_HOST_CONNECTIONS, per_host);
  curl_multi_setopt(multi_.get(), CURLMOPT_MAXCONNECTS, static_cast<long>(options_.max_in_flight));
  transfers_.reserve(options_.max_in_flight);
  for (unsigned i = 0; i < options_.max_in_flight; ++i) {
    transfers_.push_back(std::make_unique<RangeTransfer>(meter_));
    idle_.push_back(transfers_.back().get());
  }
}

RangeFetcher::~RangeFetcher() {
  // Transfers in flight are removed before their handles go, so no callback writes afterwards.
  for (const auto& transfer : transfers_) {
    if (std::find(idle_.begin(), idle_.end(), transfer.get()) == idle_.end()) {
      curl_multi_remove_handle(multi_.get(), transfer->easy());
    }
  }
  meter_.set_in_flight(0, clock_.now());  // a caller's meter: the time after is not busy
}

void RangeFetcher::submit(FetchRequest request) {
  FetchDestination destination(request.dest);
  submit(std::move(request), std::move(destination));
}

void RangeFetcher::submit(FetchRequest request, std::vector<FetchPiece> scatter) {
  FetchDestination destination(std::move(scatter));
  submit(std::move(request), std::move(destination));
}

void RangeFetcher::submit(FetchRequest request, FetchDestination destination) {
  ++pending_;
  meter_.submitted();
  auto job = std::make_unique<FetchJob>();
  job->etag = request.if_match;
  job->request = std::move(request);
  job->destination = std::move(destination);
  if (job->destination.size() == 0) {
    finish_job(std::move(job), {}, immediate_);
    return;
  }
  try {
    job->target = endpoint_.object_target(parse_url(job->request.url));
  } catch (const std::invalid_argument& error) {
    finish_job(std::move(job), {RemoteErrc::kInvalidUrl, error.what()}, immediate_);
    return;
  }
  queued_.push_back(std::move(job));
}

void RangeFetcher::wake() {
  {
    std::lock_guard lock(wake_mutex_);
    woken_.store(true);
  }
  wake_.notify_all();
  curl_multi_wakeup(multi_.get());
}

void RangeFetcher::finish_job(std::unique_ptr<FetchJob> job, RemoteFailure failure,
                              std::vector<FetchResult>& completed) {
  FetchResult result;
  result.tag = job->request.tag;
  result.bytes = job->delivered;
  if (!failure.code) result.bytes = job->destination.size();
  result.attempts = job->attempts;
  result.error = failure.code;
  result.message = std::move(failure.message);
  meter_.returned(!result.error);
  completed.push_back(std::move(result));
}

void RangeFetcher::start_ready(Clock::time_point now, std::vector<FetchResult>& completed) {
  // Retries whose delay has passed go first: they are the oldest requests.
  auto due = std::stable_partition(waiting_.begin(), waiting_.end(),
                                   [now](const auto& job) { return job->retry_at > now; });
  std::sort(due, waiting_.end(),
            [](const auto& a, const auto& b) { return a->retry_at > b->retry_at; });
  for (auto it = due; it != waiting_.end(); ++it) queued_.push_front(std::move(*it));
  waiting_.erase(due, waiting_.end());

  bool changed = false;
  while (!idle_.empty() && !queued_.empty()) {
    RangeTransfer* transfer = idle_.back();
    auto job = std::move(queued_.front());
    queued_.pop_front();
    try {
      transfer->start(std::move(job), endpoint_, now);
    } catch (const CredentialsUnavailable& error) {
      // Expired credentials that no refresh renewed: the request fails, naming their source.
      finish_job(transfer->take_job(),
                 {RemoteErrc::kAccessDenied, transfer->describe() + ": " + error.what()},
                 completed);
      continue;
    }
    idle_.pop_back();
    curl_multi_add_handle(multi_.get(), transfer->easy());
    changed = true;
  }
  if (changed) {
    meter_.set_in_flight(static_cast<unsigned>(transfers_.size() - idle_.size()), now);
  }
}

void RangeFetcher::reap(std::vector<FetchResult>& completed) {
  int left = 0;
  bool changed = false;
  while (CURLMsg* message = curl_multi_info_read(multi_.get(), &left)) {
    if (message->msg != CURLMSG_DONE) continue;
    CURL* easy = message->easy_handle;
    const CURLcode result = message->data.result;
    RangeTransfer* transfer = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &transfer);
    curl_multi_remove_handle(multi_.get(), easy);
    changed = true;
    const auto outcome = transfer->finish(result, endpoint_);
    meter_.attempt_ended(transfer->metrics());
    auto job = transfer->take_job();
    idle_.push_back(transfer);
    if (outcome.kind == AttemptOutcome::Kind::kRedirect) {
      queued_.push_front(std::move(job));  // no wait: the bucket's region answers it
      continue;
    }
    if (outcome.kind == AttemptOutcome::Kind::kRetry) {
      const auto now = clock_.now();
      const auto delay = backoff_.delay(job->attempts, outcome.server_delay);
      if (backoff_.allows(job->attempts, now + delay - job->first_attempt)) {
        meter_.retried(outcome.cause, outcome.server_delay.count() > 0);
        job->retry_at = now + delay;
        job->last_failure = outcome.failure.message;
        waiting_.push_back(std::move(job));
        continue;
      }
      auto failure = outcome.failure;
      failure.message += " (after " + std::to_string(job->attempts) + " attempts, the last " +
                         retry_cause_name(outcome.cause) + ")";
      finish_job(std::move(job), std::move(failure), completed);
      continue;
    }
    finish_job(std::move(job), outcome.failure, completed);
  }
  if (changed) {
    meter_.set_in_flight(static_cast<unsigned>(transfers_.size() - idle_.size()), clock_.now());
  }
}

Clock::time_point RangeFetcher::next_due(Clock::time_point deadline) const {
  auto until = deadline;
  for (const auto& job : waiting_) until = std::min(until, job->retry_at);
  return until;
}

void RangeFetcher::wait_for_network(Clock::time_point until) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - clock_.now());
  // At most a minute per wait (curl_multi_poll takes an int); poll() waits again if need be.
  const auto wait =
      std::clamp(left, std::chrono::milliseconds(0), std::chrono::milliseconds(60'000));
  curl_multi_poll(multi_.get(), nullptr, 0, static_cast<int>(wait.count()), nullptr);
}

void RangeFetcher::wait_on_clock(Clock::time_point until) {
  std::unique_lock lock(wake_mutex_);
  while (!woken_.load() && clock_.now() < until) clock_.wait_until(wake_, lock, until);
}

std::size_t RangeFetcher::poll(std::chrono::milliseconds timeout,
                               std::vector<FetchResult>& completed) {
  const std::size_t before = completed.size();
  for (auto& result : immediate_) completed.push_back(std::move(result));
  immediate_.clear();
  const auto deadline = clock_.now() + timeout;
  while (true) {
    start_ready(clock_.now(), completed);
    int running = 0;
    curl_multi_perform(multi_.get(), &running);
    reap(completed);
    start_ready(clock_.now(), completed);
    if (completed.size() > before || pending_ == 0) break;
    if (clock_.now() >= deadline) break;
    if (idle_.size() < transfers_.size()) {
      wait_for_network(next_due(deadline));
    } else {
      wait_on_clock(next_due(deadline));  // only retries wait, for their delay
    }
    if (woken_.exchange(false)) break;
  }
  const std::size_t appended = completed.size() - before;
  pending_ -= appended;
  return appended;
}

}  // namespace feedrate::io
