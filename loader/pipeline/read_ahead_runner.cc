#include "loader/pipeline/read_ahead_runner.h"

#include <chrono>
#include <span>
#include <utility>

#include "feedrate/error.h"

namespace feedrate {

ReadAheadRunner::ReadAheadRunner(const Dataset& dataset, RemoteSettings settings,
                                 std::uint64_t window_bytes, RemoteMirror* mirror, bool scattered,
                                 io::Clock& clock)
    : dataset_(dataset),
      settings_(std::move(settings)),
      mirror_(mirror),
      clock_(clock),
      planner_(dataset, settings_.fetch.max_in_flight, window_bytes, mirror, scattered) {}

ReadAheadRunner::~ReadAheadRunner() {
  stop();
}

void ReadAheadRunner::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (fetcher_ != nullptr) fetcher_->wake();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ReadAheadRunner::start_epoch(std::vector<std::uint32_t> order,
                                  std::vector<std::uint32_t> next) {
  {
    std::unique_lock lock(mutex_);
    if (thread_.joinable() && failure_ == nullptr && planner_.continues_with(order)) {
      begin_next_ = next;
      if (fetcher_ != nullptr) fetcher_->wake();
      changed_.notify_all();
      changed_.wait(lock, [&] { return !begin_next_ || failure_ != nullptr; });
      if (failure_ == nullptr) return;
      begin_next_.reset();  // the read-ahead failed: start afresh, and fail again if it must
    }
  }
  stop();
  std::lock_guard lock(mutex_);
  planner_.start(std::move(order), std::move(next));
  stopping_ = false;
  failure_ = nullptr;
  thread_ = std::thread([this] { run(); });
}

void ReadAheadRunner::submit(io::RangeFetcher& fetcher) {
  ReadAheadPlanner::Fetch fetch;
  for (;;) {
    const ReadAheadPlanner::Step step = planner_.next(fetcher.pending(), fetch);
    if (step == ReadAheadPlanner::Step::kWait) return;
    if (step == ReadAheadPlanner::Step::kLocal) {
      changed_.notify_all();
      continue;
    }
    io::FetchRequest request;
    request.url = dataset_.files()[fetch.file].string();
    request.offset = fetch.offset;
    request.tag = fetch.id;
    request.if_match = dataset_.etag(fetch.file);
    // The buffers stay where they are in the planner's group until it is taken.
    fetcher.submit(std::move(request), std::move(fetch.scatter));
  }
}

void ReadAheadRunner::arrived(std::vector<io::FetchResult>& completed,
                              std::unique_lock<std::mutex>& lock) {
  std::vector<std::pair<std::uint32_t, std::span<const std::byte>>> samples;
  for (const io::FetchResult& result : completed) {
    const ReadAheadGroup* group = planner_.group(result.tag);
    if (group == nullptr) continue;
    if (mirror_ != nullptr && !result.error) {
      // Stored before take() may see the group: it stays unarrived, so nothing else touches its
      // buffers meanwhile.
      samples.clear();
      group->for_each_sample([&](std::size_t position, std::span<const std::byte> bytes) {
        samples.emplace_back(planner_.index_at(position), bytes);
      });
      lock.unlock();
      for (const auto& [index, bytes] : samples) mirror_->store(index, bytes);
      lock.lock();
    }
    planner_.arrived(result.tag, !result.error            ? std::string()
                                 : result.message.empty() ? result.error.message()
                                                          : result.message);
  }
}

void ReadAheadRunner::run() {
  try {
    io::RangeFetcherOptions options = settings_.fetch;
    options.max_in_flight = planner_.ceiling();
    options.clock = &clock_;
    io::RangeFetcher fetcher(settings_.s3, options, &meter_);
    std::vector<io::FetchResult> completed;
    std::unique_lock lock(mutex_);
    fetcher_ = &fetcher;
    while (!stopping_) {
      if (begin_next_) {
        planner_.begin_next(std::move(*begin_next_));
        begin_next_.reset();
        changed_.notify_all();
      }
      submit(fetcher);
      if (fetcher.pending() == 0) {
        changed_.wait(lock);  // take() made room or waits, or stop()
        continue;
      }
      lock.unlock();
      completed.clear();
      fetcher.poll(std::chrono::milliseconds(100), completed);
      const io::FetchStats stats = fetcher.stats();
      lock.lock();
      planner_.observe(stats, clock_.now());
      arrived(completed, lock);
      if (!completed.empty()) changed_.notify_all();
    }
    fetcher_ = nullptr;
  } catch (...) {
    std::lock_guard lock(mutex_);
    fetcher_ = nullptr;
    failure_ = std::current_exception();
    changed_.notify_all();
  }
}

void ReadAheadRunner::take(std::size_t count, const Use& use) {
  std::unique_lock lock(mutex_);
  for (std::size_t i = 0; i < count; ++i) {
    const auto ready = [&] { return failure_ != nullptr || planner_.ready(i); };
    if (!ready()) {
      planner_.want(i);
      if (fetcher_ != nullptr) fetcher_->wake();
      changed_.notify_all();
      const auto start = clock_.now();
      changed_.wait(lock, ready);
      planner_.waited(clock_.now() - start);
    }
    if (failure_ != nullptr) {
      try {
        std::rethrow_exception(failure_);
      } catch (const std::exception& e) {
        throw Error(std::string("remote read-ahead: ") + e.what());
      }
    }
    use(planner_.sample(i));
    planner_.taken(i);
  }
  planner_.advance(count);
  if (fetcher_ != nullptr) fetcher_->wake();
  changed_.notify_all();
}

std::uint64_t ReadAheadRunner::held_bytes() const {
  std::lock_guard lock(mutex_);
  return planner_.held_bytes();
}

std::uint64_t ReadAheadRunner::buffers_made() const {
  std::lock_guard lock(mutex_);
  return planner_.buffers_made();
}

const std::string& ReadAheadRunner::first_url() const {
  static const std::string kNone;
  return dataset_.files().empty() ? kNone : dataset_.files().front().native();
}

double ReadAheadRunner::requests_allowed() const {
  std::lock_guard lock(mutex_);
  return planner_.requests_allowed(planner_.stats().busy_seconds);
}

io::FetchStats ReadAheadRunner::stats() const {
  std::lock_guard lock(mutex_);
  return planner_.stats();
}

}  // namespace feedrate
