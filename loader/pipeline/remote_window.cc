#include "loader/pipeline/remote_window.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "feedrate/error.h"

namespace feedrate {

RemoteWindow::RemoteWindow(const Dataset& dataset, RemoteSettings settings,
                           std::uint64_t window_bytes, RemoteMirror* mirror)
    : dataset_(dataset),
      settings_(std::move(settings)),
      window_bytes_(window_bytes),
      mirror_(mirror) {}

RemoteWindow::~RemoteWindow() {
  stop();
}

void RemoteWindow::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (fetcher_ != nullptr) fetcher_->wake();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  groups_.clear();
  held_bytes_ = 0;
}

void RemoteWindow::start_epoch(const std::vector<std::uint32_t>& order) {
  stop();
  order_ = order;
  next_submit_ = 0;
  next_take_ = 0;
  stopping_ = false;
  failure_ = nullptr;
  thread_ = std::thread([this] { run(); });
}

RemoteWindow::Group RemoteWindow::next_group() const {
  Group group;
  group.first = next_submit_;
  const auto cached = [&](std::size_t position) {
    return mirror_ != nullptr && mirror_->contains(order_[position]);
  };
  if (cached(next_submit_)) {
    group.count = 1;
    group.local = true;
    group.arrived = true;
    return group;
  }
  const SampleRef& first = dataset_.sample(order_[next_submit_]);
  group.offset = first.offset;
  std::uint64_t end = first.offset + first.size;
  group.count = 1;
  while (group.first + group.count < order_.size()) {
    const SampleRef& next = dataset_.sample(order_[group.first + group.count]);
    if (next.file != first.file || next.offset < end || next.offset - end > kMaxGap ||
        next.offset + next.size - group.offset > kMaxGroup || cached(group.first + group.count)) {
      break;
    }
    end = next.offset + next.size;
    ++group.count;
  }
  group.bytes.resize(static_cast<std::size_t>(end - group.offset));
  return group;
}

void RemoteWindow::run() {
  try {
    io::RangeFetcher fetcher(settings_.s3, settings_.fetch);
    std::vector<io::FetchResult> completed;
    std::unique_lock lock(mutex_);
    fetcher_ = &fetcher;
    while (!stopping_) {
      // Submit while the window has room; a group larger than the window goes alone.
      while (next_submit_ < order_.size() && fetcher.pending() < settings_.fetch.max_in_flight) {
        Group group = next_group();
        if (group.local) {
          ++next_submit_;
          groups_.push_back(std::move(group));
          changed_.notify_all();
          continue;
        }
        if (held_bytes_ > 0 && held_bytes_ + group.bytes.size() > window_bytes_) break;
        held_bytes_ += group.bytes.size();
        const SampleRef& first = dataset_.sample(order_[group.first]);
        io::FetchRequest request;
        request.url = dataset_.files()[first.file].string();
        request.offset = group.offset;
        request.dest = group.bytes;
        request.tag = group.first;
        request.if_match = dataset_.etag(first.file);
        next_submit_ += group.count;
        groups_.push_back(std::move(group));
        fetcher.submit(std::move(request));
      }
      if (fetcher.pending() == 0) {
        changed_.wait(lock);  // take() made room, or stop()
        continue;
      }
      lock.unlock();
      completed.clear();
      fetcher.poll(std::chrono::milliseconds(100), completed);
      const io::FetchStats stats = fetcher.stats();
      lock.lock();
      stats_ = stats;
      for (io::FetchResult& result : completed) {
        const auto it = std::find_if(groups_.begin(), groups_.end(),
                                     [&](const Group& g) { return g.first == result.tag; });
        if (it == groups_.end()) continue;
        Group& group = *it;  // stays in place: take() lets go only of arrived groups
        if (result.error) {
          group.error = result.message.empty() ? result.error.message() : result.message;
        } else if (mirror_ != nullptr) {
          lock.unlock();
          store(group);
          lock.lock();
        }
        group.arrived = true;
      }
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

void RemoteWindow::take(std::size_t count, const Use& use) {
  std::unique_lock lock(mutex_);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t position = next_take_ + i;
    const auto holding = [&] {
      return std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) {
        return g.first <= position && position < g.first + g.count;
      });
    };
    changed_.wait(lock, [&] {
      if (failure_ != nullptr) return true;
      const auto it = holding();
      return it != groups_.end() && it->arrived;
    });
    if (failure_ != nullptr) {
      try {
        std::rethrow_exception(failure_);
      } catch (const std::exception& e) {
        throw Error(std::string("remote read-ahead: ") + e.what());
      }
    }
    const Group& group = *holding();
    Sample sample;
    sample.position = i;
    sample.index = order_[position];
    const SampleRef& ref = dataset_.sample(sample.index);
    if (group.local) {
      sample.local = true;
    } else if (!group.error.empty()) {
      sample.error = dataset_.describe(sample.index) + ": " + group.error;
    } else {
      sample.bytes = std::span<const std::byte>(group.bytes)
                         .subspan(static_cast<std::size_t>(ref.offset - group.offset),
                                  static_cast<std::size_t>(ref.size));
    }
    use(sample);
  }
  next_take_ += count;
  while (!groups_.empty() && groups_.front().first + groups_.front().count <= next_take_) {
    held_bytes_ -= groups_.front().bytes.size();
    groups_.pop_front();
  }
  if (fetcher_ != nullptr) fetcher_->wake();
  changed_.notify_all();
}

void RemoteWindow::store(const Group& group) const {
  for (std::size_t k = 0; k < group.count; ++k) {
    const std::uint32_t index = order_[group.first + k];
    const SampleRef& ref = dataset_.sample(index);
    mirror_->store(index, std::span<const std::byte>(group.bytes)
                              .subspan(static_cast<std::size_t>(ref.offset - group.offset),
                                       static_cast<std::size_t>(ref.size)));
  }
}

const std::string& RemoteWindow::first_url() const {
  static const std::string kNone;
  return dataset_.files().empty() ? kNone : dataset_.files().front().native();
}

io::FetchStats RemoteWindow::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

StoreFigures store_figures(const RemoteWindow& window) {
  const io::FetchStats stats = window.stats();
  StoreFigures figures;
  figures.remote = true;
  const std::string& url = window.first_url();
  figures.scheme = url.substr(0, url.find("://"));
  figures.max_in_flight = window.settings().fetch.max_in_flight;
  figures.average_in_flight = stats.average_in_flight;
  figures.peak_in_flight = stats.peak_in_flight;
  figures.requests = stats.requests;
  figures.retries = stats.retries_total();
  figures.failed = stats.failed;
  figures.bytes = stats.bytes;
  figures.first_byte_p50_ms = stats.first_byte_p50_ms;
  figures.first_byte_p99_ms = stats.first_byte_p99_ms;
  figures.bytes_per_s = stats.bytes_per_second;
  figures.bytes_per_s_per_connection = stats.bytes_per_second_per_connection;
  figures.busy_s = stats.busy_seconds;
  return figures;
}

}  // namespace feedrate
