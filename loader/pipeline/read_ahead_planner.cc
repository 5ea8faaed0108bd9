#include "loader/pipeline/read_ahead_planner.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace feedrate {

ReadAheadPlanner::ReadAheadPlanner(const Dataset& dataset, unsigned max_in_flight,
                                   std::uint64_t window_bytes, const RemoteMirror* mirror,
                                   bool scattered)
    : dataset_(dataset),
      window_bytes_(window_bytes),
      mirror_(mirror),
      scattered_(scattered),
      sizer_(max_in_flight, window_bytes),
      growth_(max_in_flight, window_bytes),
      buffers_(2 * window_bytes) {}

void ReadAheadPlanner::start(std::vector<std::uint32_t> order, std::vector<std::uint32_t> next) {
  for (auto& [id, group] : groups_) group.drop(buffers_);
  groups_.clear();
  ahead_.clear();
  if (staged_) staged_->drop(buffers_);
  staged_.reset();
  held_bytes_ = 0;
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
}

bool ReadAheadPlanner::continues_with(const std::vector<std::uint32_t>& order) const {
  return next_take_ == epoch_end_ && epoch_end_ < order_.size() &&
         std::equal(order_.begin() + static_cast<std::ptrdiff_t>(epoch_end_), order_.end(),
                    order.begin(), order.end());
}

void ReadAheadPlanner::mark_alone(bool fresh) {
  alone_ = alone_positions(dataset_, order_, epoch_end_, window_bytes_, fresh, scattered_);
}

bool ReadAheadPlanner::cached(std::size_t position) const {
  return mirror_ != nullptr && mirror_->contains(order_[position]);
}

void ReadAheadPlanner::extend_horizon() {
  while (horizon_end_ < order_.size()) {
    const SampleRef& ref = dataset_.sample(order_[horizon_end_]);
    if (!ahead_.empty() && ahead_bytes_ + ref.size > window_bytes_) break;
    ahead_.emplace(std::make_pair(ref.file, ref.offset), horizon_end_);
    ahead_bytes_ += ref.size;
    ++horizon_end_;
  }
}

void ReadAheadPlanner::begin_next(std::vector<std::uint32_t> next) {
  // Every position of the finished epoch was taken: a group holding some of them holds them
  // first (its positions ascend), as taken samples.
  const std::size_t done = epoch_end_;
  for (auto& [id, group] : groups_) {
    group.rebase(done);
    // The next epoch's GETs still in flight are this epoch's now.
    if (!group.arrived() && !group.counted()) {
      group.set_counted(true);
      ++this_epoch_in_flight_;
    }
  }
  if (staged_) staged_->rebase(done);
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

ReadAheadGroup ReadAheadPlanner::next_group(std::uint64_t room) {
  extend_horizon();
  const std::size_t position = next_submit_;
  const SampleRef& first = dataset_.sample(order_[position]);
  auto found = ahead_.equal_range({first.file, first.offset});
  auto at = std::find_if(found.first, found.second,
                         [&](const auto& entry) { return entry.second == position; });
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
  const bool local = cached(position);
  if (!local) {
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
          begin - (ref.offset + ref.size) > kMaxGap || end - ref.offset > most ||
          cached(it->second)) {
        break;
      }
      begin = ref.offset;
      members.push_back(it);
    }
    for (auto it = std::next(at); it != ahead_.end(); ++it) {
      const SampleRef& ref = dataset_.sample(order_[it->second]);
      if (ref.file == first.file && ref.offset == last) continue;
      if (ref.file != first.file || ref.offset < end || ref.offset - end > kMaxGap ||
          ref.offset + ref.size - begin > most || cached(it->second)) {
        break;
      }
      end = ref.offset + ref.size;
      last = ref.offset;
      members.push_back(it);
    }
  }
  std::vector<ReadAheadGroup::Member> grouped;
  for (const Ahead::iterator& it : members) {
    const SampleRef& ref = dataset_.sample(order_[it->second]);
    grouped.push_back({it->second, ref});
    ahead_bytes_ -= ref.size;
    ahead_.erase(it);
  }
  std::sort(grouped.begin(), grouped.end(),
            [](const auto& a, const auto& b) { return a.position < b.position; });
  if (!local) return ReadAheadGroup::fetched(std::move(grouped), buffers_);
  return ReadAheadGroup::local({grouped.front().position});
}

std::uint64_t ReadAheadPlanner::add_group(ReadAheadGroup group) {
  const std::uint64_t id = next_id_++;
  for (const std::size_t position : group.positions()) group_of_[position] = id + 1;
  groups_.emplace(id, std::move(group));
  while (next_submit_ < order_.size() && group_of_[next_submit_] != 0) ++next_submit_;
  return id;
}

ReadAheadPlanner::Step ReadAheadPlanner::next(std::size_t pending, Fetch& fetch) {
  // A group larger than the window goes alone, and the group take() waits for goes whatever the
  // window holds.
  if (next_submit_ >= order_.size() || pending >= growth_.requests()) return Step::kWait;
  if (!staged_) staged_ = next_group(window_bytes_ - std::min(held_bytes_, window_bytes_));
  if (staged_->is_local()) {
    add_group(std::move(*staged_));
    staged_.reset();
    return Step::kLocal;
  }
  const std::uint64_t size = staged_->held_bytes();
  const bool waited_for = wanted_ >= staged_->first_position();
  if (held_bytes_ > 0 && held_bytes_ + size > window_bytes_ && !waited_for) return Step::kWait;
  // The next epoch's GETs wait for this epoch's to arrive, whose link they would share.
  const bool this_epoch = staged_->first_position() < epoch_end_;
  if (!this_epoch && this_epoch_in_flight_ > 0) return Step::kWait;
  staged_->set_counted(this_epoch);
  this_epoch_in_flight_ += this_epoch ? 1 : 0;
  held_bytes_ += size;
  fetch.file = staged_->file();
  fetch.offset = staged_->offset();
  fetch.scatter = staged_->scatter();
  fetch.id = add_group(std::move(*staged_));
  staged_.reset();
  return Step::kFetch;
}

const ReadAheadGroup* ReadAheadPlanner::group(std::uint64_t id) const {
  const auto it = groups_.find(id);
  return it == groups_.end() ? nullptr : &it->second;
}

void ReadAheadPlanner::arrived(std::uint64_t id, std::string error) {
  const auto it = groups_.find(id);
  if (it == groups_.end()) return;
  ReadAheadGroup& group = it->second;
  if (group.counted()) --this_epoch_in_flight_;
  const std::uint64_t held = group.held_bytes();
  group.arrive(std::move(error), buffers_);
  release(held - group.held_bytes());
}

void ReadAheadPlanner::observe(const io::FetchStats& stats, io::Clock::time_point now) {
  stats_ = stats;
  const unsigned requests = growth_.requests();
  // Under a scattered order the first window's GETs went a sample each, and the sizer read
  // them; otherwise the run's own figures tell, which read as queued where GETs group many
  // samples (so the requests stay): their GETs are of a sample each only where no neighbours
  // group (a full shuffle).
  growth_.observe(stats_, sizer_.link_full().value_or(GroupSizer::queued(stats_)), take_waited_,
                  now);
  if (growth_.requests() != requests) sizer_.requests_changed(growth_.requests());
}

const ReadAheadGroup& ReadAheadPlanner::group_at(std::size_t position) const {
  return groups_.at(group_of_[position] - 1);
}

bool ReadAheadPlanner::ready(std::size_t i) const {
  const std::size_t position = next_take_ + i;
  const std::uint64_t id = group_of_[position];
  return id != 0 && groups_.at(id - 1).arrived();
}

void ReadAheadPlanner::want(std::size_t i) {
  wanted_ = next_take_ + i;
}

ReadAheadSample ReadAheadPlanner::sample(std::size_t i) const {
  const std::size_t position = next_take_ + i;
  const ReadAheadGroup& group = group_at(position);
  ReadAheadSample sample;
  sample.position = i;
  sample.index = order_[position];
  if (group.is_local()) {
    sample.local = true;
  } else if (!group.error().empty()) {
    sample.error = dataset_.describe(sample.index) + ": " + group.error();
  } else {
    sample.bytes = group.bytes(position);
  }
  return sample;
}

void ReadAheadPlanner::taken(std::size_t i) {
  const std::size_t position = next_take_ + i;
  const auto it = groups_.find(group_of_[position] - 1);
  release(it->second.take(position, buffers_));
  if (it->second.done()) groups_.erase(it);
}

void ReadAheadPlanner::advance(std::size_t count) {
  next_take_ += count;
}

}  // namespace feedrate
