#include "loader/pipeline/remote_window.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <utility>

#include "feedrate/error.h"

namespace feedrate {

RemoteWindow::RemoteWindow(const Dataset& dataset, RemoteSettings settings,
                           std::uint64_t window_bytes, RemoteMirror* mirror, bool scattered)
    : dataset_(dataset),
      settings_(std::move(settings)),
      window_bytes_(window_bytes),
      mirror_(mirror),
      scattered_(scattered),
      sizer_(settings_.fetch.max_in_flight, window_bytes),
      growth_(settings_.fetch.max_in_flight, window_bytes) {}

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
  ahead_.clear();
  staged_.reset();
  held_bytes_ = 0;
}

void RemoteWindow::start_epoch(std::vector<std::uint32_t> order, std::vector<std::uint32_t> next) {
  {
    std::unique_lock lock(mutex_);
    const bool expected = thread_.joinable() && failure_ == nullptr && next_take_ == epoch_end_ &&
                          std::equal(order_.begin() + static_cast<std::ptrdiff_t>(epoch_end_),
                                     order_.end(), order.begin(), order.end());
    if (expected && epoch_end_ < order_.size()) {
      begin_next_ = next;
      if (fetcher_ != nullptr) fetcher_->wake();
      changed_.notify_all();
      changed_.wait(lock, [&] { return !begin_next_ || failure_ != nullptr; });
      if (failure_ == nullptr) return;
      begin_next_.reset();  // the read-ahead failed: start afresh, and fail again if it must
    }
  }
  stop();
  epoch_end_ = order.size();
  order_ = std::move(order);
  order_.insert(order_.end(), next.begin(), next.end());
  group_of_.assign(order_.size(), 0);
  next_submit_ = 0;
  next_take_ = 0;
  wanted_ = 0;
  horizon_end_ = 0;
  ahead_bytes_ = 0;
  this_epoch_in_flight_ = 0;
  growth_.restarted(stats_.bytes);
  mark_alone(true);
  stopping_ = false;
  failure_ = nullptr;
  thread_ = std::thread([this] { run(); });
}

void RemoteWindow::mark_alone(bool fresh) {
  alone_ = alone_positions(dataset_, order_, epoch_end_, window_bytes_, fresh, scattered_);
}

void RemoteWindow::extend_horizon() {
  while (horizon_end_ < order_.size()) {
    const SampleRef& ref = dataset_.sample(order_[horizon_end_]);
    if (!ahead_.empty() && ahead_bytes_ + ref.size > window_bytes_) break;
    ahead_.emplace(std::make_pair(ref.file, ref.offset), horizon_end_);
    ahead_bytes_ += ref.size;
    ++horizon_end_;
  }
}

void RemoteWindow::begin_next(std::vector<std::uint32_t> next) {
  // Every position of the finished epoch was taken: a group holding some of them holds them
  // first (its positions ascend), as taken samples whose pieces are let go.
  const std::size_t done = epoch_end_;
  const auto rebase = [done](std::size_t& position) { position -= done; };
  for (auto& [id, group] : groups_) {
    const auto kept = std::lower_bound(group.positions.begin(), group.positions.end(), done);
    const auto gone = kept - group.positions.begin();
    group.positions.erase(group.positions.begin(), kept);
    if (!group.pieces.empty())
      group.pieces.erase(group.pieces.begin(), group.pieces.begin() + gone);
    group.taken -= static_cast<std::size_t>(gone);
    std::for_each(group.positions.begin(), group.positions.end(), rebase);
    // The next epoch's GETs still in flight are this epoch's now.
    if (!group.arrived && !group.counted) {
      group.counted = true;
      ++this_epoch_in_flight_;
    }
  }
  if (staged_) std::for_each(staged_->positions.begin(), staged_->positions.end(), rebase);
  Ahead ahead;
  for (auto [where, position] : ahead_) ahead.emplace(where, position - done);
  ahead_.swap(ahead);
  const auto erase_done = [done](auto& v) {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(done));
  };
  erase_done(order_);
  erase_done(group_of_);
  epoch_end_ = order_.size();
  order_.insert(order_.end(), next.begin(), next.end());
  group_of_.resize(order_.size(), 0);
  horizon_end_ -= done;
  next_submit_ -= done;
  next_take_ = 0;
  wanted_ = wanted_ > done ? wanted_ - done : 0;
  mark_alone(false);
}

RemoteWindow::Group RemoteWindow::next_group(std::uint64_t room) {
  extend_horizon();
  const std::size_t position = next_submit_;
  const SampleRef& first = dataset_.sample(order_[position]);
  auto found = ahead_.equal_range({first.file, first.offset});
  auto at = std::find_if(found.first, found.second,
                         [&](const auto& entry) { return entry.second == position; });
  Group group;
  const auto cached = [&](Ahead::const_iterator it) {
    return mirror_ != nullptr && mirror_->contains(order_[it->second]);
  };
  std::vector<Ahead::iterator> members{at};
  // No larger than the window's room (one sample at least), so that held bytes stay within it,
  // nor than the sizer's bound (at most the window's share per request in flight, so that
  // max_in_flight GETs fit in it: over a long round trip one connection carries a fraction of the
  // link; 8 MB GETs, 8 at once, moved 33 MB/s over a 25 ms, 1 Gbit/s link that 64 GETs fill).
  const bool alone = position < alone_.end || (position >= alone_.from && position < epoch_end_);
  sizer_.observe(stats_, !alone);
  const std::uint64_t most = alone ? first.size
                                   : std::min({kMaxGroup, std::max<std::uint64_t>(room, first.size),
                                               std::max<std::uint64_t>(sizer_.most(), first.size)});
  if (cached(at)) {
    group.local = true;
    group.arrived = true;
  } else {
    // Storage neighbours of the same file before the sample, then after it. The same sample at
    // another place in the horizon (the next epoch's) is passed over: it is fetched on its own.
    std::uint64_t begin = first.offset;
    std::uint64_t end = first.offset + first.size;
    std::uint64_t last = first.offset;  // of the last neighbour after it
    for (auto it = at; it != ahead_.begin();) {
      --it;
      const SampleRef& ref = dataset_.sample(order_[it->second]);
      if (ref.file == first.file && ref.offset == begin) continue;
      if (ref.file != first.file || ref.offset + ref.size > begin ||
          begin - (ref.offset + ref.size) > kMaxGap || end - ref.offset > most || cached(it)) {
        break;
      }
      begin = ref.offset;
      members.push_back(it);
    }
    for (auto it = std::next(at); it != ahead_.end(); ++it) {
      const SampleRef& ref = dataset_.sample(order_[it->second]);
      if (ref.file == first.file && ref.offset == last) continue;
      if (ref.file != first.file || ref.offset < end || ref.offset - end > kMaxGap ||
          ref.offset + ref.size - begin > most || cached(it)) {
        break;
      }
      end = ref.offset + ref.size;
      last = ref.offset;
      members.push_back(it);
    }
    group.offset = begin;
    group.bytes = Group::Bytes(static_cast<std::size_t>(end - begin));
  }
  for (const Ahead::iterator& it : members) {
    group.positions.push_back(it->second);
    ahead_bytes_ -= dataset_.sample(order_[it->second]).size;
    ahead_.erase(it);
  }
  std::sort(group.positions.begin(), group.positions.end());
  return group;
}

std::uint64_t RemoteWindow::add_group(Group group) {
  const std::uint64_t id = next_id_++;
  for (const std::size_t position : group.positions) group_of_[position] = id + 1;
  groups_.emplace(id, std::move(group));
  while (next_submit_ < order_.size() && group_of_[next_submit_] != 0) ++next_submit_;
  return id;
}

void RemoteWindow::run() {
  try {
    io::RangeFetcherOptions options = settings_.fetch;
    options.max_in_flight = growth_.ceiling();
    io::RangeFetcher fetcher(settings_.s3, options, &meter_);
    std::vector<io::FetchResult> completed;
    std::unique_lock lock(mutex_);
    fetcher_ = &fetcher;
    while (!stopping_) {
      if (begin_next_) {
        begin_next(std::move(*begin_next_));
        begin_next_.reset();
        changed_.notify_all();
      }
      // Submit while the window has room; a group larger than the window goes alone, and the
      // group take() waits for goes whatever the window holds.
      while (next_submit_ < order_.size() && fetcher.pending() < growth_.requests()) {
        if (!staged_) staged_ = next_group(window_bytes_ - std::min(held_bytes_, window_bytes_));
        if (staged_->local) {
          add_group(std::move(*staged_));
          staged_.reset();
          changed_.notify_all();
          continue;
        }
        const std::size_t size = staged_->bytes.size();
        const bool waited_for = wanted_ >= staged_->positions.front();
        if (held_bytes_ > 0 && held_bytes_ + size > window_bytes_ && !waited_for) break;
        // The next epoch's GETs wait for this epoch's to arrive, whose link they would share.
        const bool this_epoch = staged_->positions.front() < epoch_end_;
        if (!this_epoch && this_epoch_in_flight_ > 0) break;
        staged_->counted = this_epoch;
        this_epoch_in_flight_ += this_epoch ? 1 : 0;
        held_bytes_ += size;
        const SampleRef& first = dataset_.sample(order_[staged_->positions.front()]);
        io::FetchRequest request;
        request.url = dataset_.files()[first.file].string();
        request.offset = staged_->offset;
        request.dest = staged_->bytes.span();  // the buffer stays where it is in groups_
        request.if_match = dataset_.etag(first.file);
        request.tag = add_group(std::move(*staged_));
        staged_.reset();
        fetcher.submit(std::move(request));
      }
      if (fetcher.pending() == 0) {
        changed_.wait(lock);  // take() made room or waits, or stop()
        continue;
      }
      lock.unlock();
      completed.clear();
      fetcher.poll(std::chrono::milliseconds(100), completed);
      const io::FetchStats stats = fetcher.stats();
      lock.lock();
      stats_ = stats;
      const unsigned requests = growth_.requests();
      // Under a scattered order the first window's GETs went a sample each, and the sizer read
      // them; otherwise the run's own figures tell, which read as queued where GETs group many
      // samples (so the requests stay): their GETs are of a sample each only where no
      // neighbours group (a full shuffle).
      growth_.observe(stats_, sizer_.link_full().value_or(GroupSizer::queued(stats_)), take_waited_,
                      io::FetchClock::now());
      if (growth_.requests() != requests) sizer_.requests_changed(growth_.requests());
      for (io::FetchResult& result : completed) {
        const auto it = groups_.find(result.tag);
        if (it == groups_.end()) continue;
        Group& group = it->second;  // stays in place: take() lets go only of arrived groups
        if (group.counted) --this_epoch_in_flight_;
        group.counted = false;
        if (result.error) {
          group.error = result.message.empty() ? result.error.message() : result.message;
          release(group.bytes.size());
          group.bytes.reset();
        } else {
          lock.unlock();
          if (mirror_ != nullptr) store(group);
          const std::uint64_t gaps = group.positions.size() > 1 ? split(group) : 0;
          lock.lock();
          release(gaps);
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
    const auto ready = [&] {
      if (failure_ != nullptr) return true;
      const std::uint64_t id = group_of_[position];
      return id != 0 && groups_.at(id - 1).arrived;
    };
    if (!ready()) {
      wanted_ = position;
      if (fetcher_ != nullptr) fetcher_->wake();
      changed_.notify_all();
      const auto start = io::FetchClock::now();
      changed_.wait(lock, ready);
      take_waited_ += io::FetchClock::now() - start;
    }
    if (failure_ != nullptr) {
      try {
        std::rethrow_exception(failure_);
      } catch (const std::exception& e) {
        throw Error(std::string("remote read-ahead: ") + e.what());
      }
    }
    const auto it = groups_.find(group_of_[position] - 1);
    Group& group = it->second;
    Sample sample;
    sample.position = i;
    sample.index = order_[position];
    const SampleRef& ref = dataset_.sample(sample.index);
    if (group.local) {
      sample.local = true;
    } else if (!group.error.empty()) {
      sample.error = dataset_.describe(sample.index) + ": " + group.error;
    } else if (!group.pieces.empty()) {
      sample.bytes = group.pieces[group.piece_of(position)];
    } else {
      sample.bytes = group.range_of(ref);
    }
    use(sample);
    if (!group.pieces.empty()) {
      std::vector<std::byte>& piece = group.pieces[group.piece_of(position)];
      release(piece.size());
      std::vector<std::byte>().swap(piece);
    }
    if (++group.taken == group.positions.size()) {
      release(group.bytes.size());
      groups_.erase(it);
    }
  }
  next_take_ += count;
  if (fetcher_ != nullptr) fetcher_->wake();
  changed_.notify_all();
}

void RemoteWindow::store(const Group& group) const {
  for (const std::size_t position : group.positions) {
    const std::uint32_t index = order_[position];
    mirror_->store(index, group.range_of(dataset_.sample(index)));
  }
}

std::uint64_t RemoteWindow::split(Group& group) const {
  return group.split(
      [&](std::size_t position) -> const SampleRef& { return dataset_.sample(order_[position]); });
}

void RemoteWindow::release(std::uint64_t bytes) {
  held_bytes_ -= std::min(bytes, held_bytes_);
}

std::uint64_t RemoteWindow::held_bytes() const {
  std::lock_guard lock(mutex_);
  return held_bytes_;
}

const std::string& RemoteWindow::first_url() const {
  static const std::string kNone;
  return dataset_.files().empty() ? kNone : dataset_.files().front().native();
}

double RemoteWindow::requests_allowed() const {
  std::lock_guard lock(mutex_);
  return growth_.allowed_on_average(stats_.busy_seconds);
}

io::FetchStats RemoteWindow::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace feedrate
