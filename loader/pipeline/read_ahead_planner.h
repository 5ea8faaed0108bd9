// What the remote read-ahead fetches next (internal to loader/): a pure planner, with no thread,
// no clock and no fetcher, that its runner (read_ahead_runner.h) drives under its lock. It owns
// the order, the horizon, the groups in flight or arrived, the window's bytes and the choices
// made from the fetcher's figures (the group sizer, the in-flight growth), so that every rule of
// the read-ahead can be tested by calling it.
//
// Requests are grouped in storage order, not delivery order: the samples of the order's next
// `window_bytes` (the horizon) that lie one after the other in a shard (within kMaxGap bytes)
// go as one ranged GET of up to kMaxGroup bytes, whatever their places in the order, so that
// shuffle=blocks (whose window permutes whole runs of neighbours) and shuffle=none cost a GET per
// run, not per sample; a sample with no neighbour in the horizon (a full shuffle of a dataset
// far larger than it) is one GET. When the order scatters each run over the window (`scattered`:
// shuffle=blocks, whose every batch draws on every run of its shuffle window), two windows go a
// sample a GET, in delivery order, so that their batches fill as their bytes arrive: the first
// of an epoch started afresh (grouped, its first batch would wait for all of it) and an epoch's
// last when nothing is read ahead after it (grouped, it would decode with the link idle). A
// group is no larger than the room left in the window when it is formed, nor than
// window_bytes / max_in_flight, so that the window holds max_in_flight GETs at once, nor, when
// the first window's GETs show a full link, than a few round trips of its rate per request in
// flight (group_sizer.h). Each sample of a group arrives into a buffer of its own
// (read_ahead_group.h) and lets it go as soon as it is taken, so that the room its neighbours'
// later places in the order keep is theirs only (under shuffle=blocks a run's samples are spread
// over the whole shuffle window: holding the run until its last sample would empty the
// read-ahead at every window's end).
//
// At most requests() GETs run at once (twice as many once the run shows a slow store that they
// bound: in_flight_growth.h), and the bytes held (arrived and not yet taken, or in flight) stay
// under `window_bytes`; the group holding the sample take() waits for is fetched even past it,
// so the window never stalls the epoch.
//
// Across epochs: the order may hold the samples the next epoch takes after this epoch's. Once
// the horizon reaches the end of this epoch's, it goes on into the next's once all of this
// epoch's GETs have arrived (they would share the link). begin_next() drops the finished epoch
// and keeps what was read ahead; start() drops everything and starts afresh.
//
// With a local-disk cache the samples it holds are not fetched: they are handed over as
// `local`, for the I/O thread to read from the disk.
//
// Thread-safety: none; its runner's lock guards every call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "feedrate/dataset.h"
#include "io/clock.h"
#include "io/remote/fetch_destination.h"
#include "io/remote/fetch_request.h"
#include "io/remote/fetch_stats.h"
#include "loader/cache/remote_mirror.h"
#include "loader/pipeline/group_sizer.h"
#include "loader/pipeline/in_flight_growth.h"
#include "loader/pipeline/read_ahead_group.h"
#include "loader/pipeline/read_ahead_plan.h"
#include "loader/pipeline/sample_buffers.h"

namespace feedrate {

// One sample as the read-ahead hands it over: its bytes, or why there are none, or that the
// local cache holds it.
struct ReadAheadSample {
  std::size_t position = 0;  // in the batch taken
  std::uint32_t index = 0;
  std::span<const std::byte> bytes;
  std::string error;
  bool local = false;
};

class ReadAheadPlanner {
 public:
  static constexpr std::uint64_t kMaxGap = 64 << 10;
  static constexpr std::uint64_t kMaxGroup = 8 << 20;

  // `mirror` (may be null) outlives the planner.
  ReadAheadPlanner(const Dataset& dataset, unsigned max_in_flight, std::uint64_t window_bytes,
                   const RemoteMirror* mirror, bool scattered);

  // Starts afresh: `order` (this epoch's samples in delivery order), then `next` (the next
  // epoch's, to read ahead into). Every group is dropped (none may be in flight any more), and
  // the growth measures anew from the store's bytes so far.
  void start(std::vector<std::uint32_t> order, std::vector<std::uint32_t> next);
  // Whether an epoch whose order is `order` is the one read ahead into, with all of this epoch
  // taken: then begin_next() keeps what was read ahead.
  bool continues_with(const std::vector<std::uint32_t>& order) const;
  // Drops the finished epoch's positions, numbers the rest from 0 and appends `next`.
  void begin_next(std::vector<std::uint32_t> next);

  // A GET to submit: the group's id (the request's tag), its object and range, and where its
  // samples' bytes go.
  struct Fetch {
    std::uint64_t id = 0;
    std::uint32_t file = 0;
    std::uint64_t offset = 0;
    std::vector<io::FetchPiece> scatter;
  };
  enum class Step { kWait, kLocal, kFetch };
  // What to do next with `pending` GETs pending: wait (the window is full, the requests are all
  // in flight, the next epoch waits for this one's, or nothing is left), a group the local cache
  // holds was recorded (arrived), or submit `fetch` (recorded as in flight).
  Step next(std::size_t pending, Fetch& fetch);

  // The sample at `position` of the order.
  std::uint32_t index_at(std::size_t position) const { return order_[position]; }
  // The group with this id, while it is held; null once taken or dropped.
  const ReadAheadGroup* group(std::uint64_t id) const;
  // The GET of group `id` arrived (`error` empty) or failed.
  void arrived(std::uint64_t id, std::string error);
  // The fetcher's figures as of a poll at `now`, on the runner's clock, the fetcher's (for the
  // group sizer and the in-flight growth).
  void observe(const io::FetchStats& stats, io::Clock::time_point now);

  // take()'s side, for the i-th sample from the next one not taken: whether it arrived (or
  // failed); that take() waits for it; how long take() waited; the sample; that it was taken;
  // and that `count` samples were.
  bool ready(std::size_t i) const;
  void want(std::size_t i);
  void waited(io::Clock::duration duration) { take_waited_ += duration; }
  ReadAheadSample sample(std::size_t i) const;
  void taken(std::size_t i);
  void advance(std::size_t count);

  // The GETs it may keep in flight now, the most it ever may, and on average over the store's
  // busy time.
  unsigned requests() const { return growth_.requests(); }
  unsigned ceiling() const { return growth_.ceiling(); }
  double requests_allowed(double busy_seconds) const {
    return growth_.allowed_on_average(busy_seconds);
  }
  // The bytes held: of samples arrived and not taken, and of GETs in flight.
  std::uint64_t held_bytes() const { return held_bytes_; }
  const io::FetchStats& stats() const { return stats_; }
  // Sample buffers made so far (steady state: none more per sample).
  std::uint64_t buffers_made() const { return buffers_.made(); }

 private:
  // An ungrouped sample of the horizon, by where it lies: (file, offset) -> position.
  using Ahead = std::multimap<std::pair<std::uint32_t, std::uint64_t>, std::size_t>;

  // Adds the order's samples to the horizon up to window_bytes_ ungrouped.
  void extend_horizon();
  // The group of the sample at next_submit_ and its storage neighbours in the horizon, taken
  // out of it, of at most `room` bytes (or the one sample).
  ReadAheadGroup next_group(std::uint64_t room);
  // Records `group` under a new id and moves next_submit_ past the grouped positions.
  std::uint64_t add_group(ReadAheadGroup group);
  void mark_alone(bool fresh);
  bool cached(std::size_t position) const;
  const ReadAheadGroup& group_at(std::size_t position) const;
  void release(std::uint64_t bytes) { held_bytes_ -= std::min(bytes, held_bytes_); }

  const Dataset& dataset_;
  const std::uint64_t window_bytes_;
  const RemoteMirror* const mirror_;
  const bool scattered_;

  std::vector<std::uint32_t> order_;  // this epoch's samples, then the next's
  std::size_t epoch_end_ = 0;         // where the next epoch's begin in order_
  AlonePositions alone_;              // of order_, for this epoch
  std::size_t this_epoch_in_flight_ = 0;
  std::map<std::uint64_t, ReadAheadGroup> groups_;  // by id, until their last sample is taken
  std::vector<std::uint64_t> group_of_;             // per position: its group's id + 1; 0: none
  std::uint64_t next_id_ = 0;
  Ahead ahead_;
  std::size_t horizon_end_ = 0;
  std::uint64_t ahead_bytes_ = 0;
  std::optional<ReadAheadGroup> staged_;  // formed, waiting for room in the window
  std::size_t next_submit_ = 0;           // the first position not grouped
  std::size_t next_take_ = 0;
  std::size_t wanted_ = 0;  // the position take() waits for
  std::uint64_t held_bytes_ = 0;
  io::FetchStats stats_;
  GroupSizer sizer_;  // of the groups past a scattered order's first window
  InFlightGrowth growth_;
  io::Clock::duration take_waited_{};
  SampleBuffers buffers_;
};

}  // namespace feedrate
