// The read-ahead of a remote dataset (internal to loader/): a thread of its own keeps ranged
// GETs in flight for the samples the epoch's order names next, ACROSS batches, so that the
// store's time to first byte (tens to hundreds of milliseconds) is paid once per request in
// flight, not once per batch. The I/O thread then takes the samples in order, as it reads the
// batches.
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
// group is held until its last sample is taken, and is no
// larger than the room left in the window when it is formed, nor than window_bytes /
// max_in_flight, so that the window holds max_in_flight GETs at once, nor, when the first
// window's GETs show a full link, than a few round trips of its rate per request in flight
// (loader/pipeline/group_sizer.h). Once a group of several
// samples has arrived, each sample's bytes are held apart and let go as soon as take() hands it
// over, so that the room its neighbours' later places in the order keep is theirs only (under
// shuffle=blocks a run's samples are spread over the whole shuffle window: holding the run until
// its last sample would empty the read-ahead at every window's end). Every GET
// asks for the object's version the index was built from (If-Match: its ETag). At most
// `max_in_flight` GETs run at once (twice as many once the run shows a slow store that they
// bound: loader/pipeline/in_flight_growth.h), and the bytes held (arrived and not yet taken, or in
// flight) stay under `window_bytes`, which the memory budget counts; the group holding the
// sample take() waits for is fetched even past it, so the window never stalls the epoch.
// Retries are the fetcher's (io/remote/range_fetcher.h); a sample whose GET fails for good is
// delivered as its error ("WHERE: MESSAGE", naming the object), for the bad-input policy.
//
// Across epochs: start_epoch() may name the samples the next epoch takes. Once the horizon
// reaches the end of this epoch's, it goes on into the next's once all of this epoch's GETs
// have arrived (they would share the link), so that the next epoch's first GETs are in flight
// while this epoch's last batches decode (else every epoch would begin with an empty window: a
// round trip, and under shuffle=blocks a whole shuffle window to fetch, before its first batch).
// The next start_epoch() keeps what was read ahead when it is given those samples and this epoch
// was taken to its end; otherwise it drops it and starts afresh. The store's figures run on over
// every epoch either way, as the rest of the report does.
//
// With a local-disk cache (loader/cache/remote_mirror.h) the samples it holds are not fetched:
// take() hands them over as `local`, for the I/O thread to read from the disk; every sample
// that arrives is stored there by this thread, before take() sees it.
//
// Thread-safety: start_epoch(), take() and the destructor belong to one thread (the I/O
// thread); stats(), held_bytes() and requests_allowed() may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "feedrate/report.h"
#include "io/remote/fetch_stats.h"
#include "io/remote/range_fetcher.h"
#include "loader/cache/remote_mirror.h"
#include "loader/dataset/remote_settings.h"
#include "loader/pipeline/group_sizer.h"
#include "loader/pipeline/in_flight_growth.h"
#include "loader/pipeline/read_ahead_group.h"
#include "loader/pipeline/read_ahead_plan.h"

namespace feedrate {

class RemoteWindow {
 public:
  static constexpr std::uint64_t kMaxGap = 64 << 10;
  static constexpr std::uint64_t kMaxGroup = 8 << 20;

  // `mirror` (may be null) outlives the window.
  RemoteWindow(const Dataset& dataset, RemoteSettings settings, std::uint64_t window_bytes,
               RemoteMirror* mirror, bool scattered = false);
  ~RemoteWindow();
  RemoteWindow(const RemoteWindow&) = delete;
  RemoteWindow& operator=(const RemoteWindow&) = delete;

  // Starts the epoch whose batches take `order` (this rank's samples, in delivery order); `next`:
  // the samples the epoch expected after it takes, to read ahead into (empty: none). Keeps what
  // was read ahead when `order` is the previous call's `next` and all of that epoch was taken;
  // otherwise drops whatever the previous epoch had in flight and reads ahead from order's first.
  void start_epoch(std::vector<std::uint32_t> order, std::vector<std::uint32_t> next = {});

  // One sample as take() hands it over: its bytes, or why there are none, or that the local
  // cache holds it.
  struct Sample {
    std::size_t position = 0;  // in the batch taken
    std::uint32_t index = 0;
    std::span<const std::byte> bytes;
    std::string error;
    bool local = false;
  };
  using Use = std::function<void(const Sample& sample)>;
  // Waits until the next `count` samples of the order have arrived or failed, hands each to
  // `use` in order (position 0..count-1), then lets their memory go. Throws feedrate::Error when
  // the read-ahead itself failed (libcurl could not start).
  void take(std::size_t count, const Use& use);

  // The fetcher's figures, as of its latest poll.
  io::FetchStats stats() const;
  // The GETs the read-ahead was allowed in flight, on average over the store's busy time so far
  // (loader/pipeline/in_flight_growth.h).
  double requests_allowed() const;
  // The bytes held now: of samples arrived and not yet taken, and of the GETs in flight.
  std::uint64_t held_bytes() const;
  const RemoteSettings& settings() const { return settings_; }
  // The dataset's first object, for its scheme.
  const std::string& first_url() const;

 private:
  using Group = ReadAheadGroup;
  // An ungrouped sample of the horizon, by where it lies: (file, offset) -> position.
  using Ahead = std::multimap<std::pair<std::uint32_t, std::uint64_t>, std::size_t>;

  void run();
  // Adds the order's samples to the horizon up to window_bytes_ ungrouped (under mutex_).
  void extend_horizon();
  // The group of the sample at next_submit_ and its storage neighbours in the horizon, taken
  // out of it, of at most `room` bytes (or the one sample) (under mutex_).
  Group next_group(std::uint64_t room);
  // Records `group` under a new id for its positions and moves next_submit_ past the grouped
  // ones; returns the id (under mutex_).
  std::uint64_t add_group(Group group);
  void stop();
  // The window's thread, at the next epoch's start (under mutex_): drops the finished epoch's
  // positions, numbers the rest from 0 and appends `next` to the order.
  void begin_next(std::vector<std::uint32_t> next);
  // Stores an arrived group's samples in the mirror (the window's thread, unlocked).
  void store(const Group& group) const;
  // Splits an arrived group into its samples' pieces (the window's thread, unlocked); returns
  // the bytes let go.
  std::uint64_t split(Group& group) const;
  // Takes `bytes` from held_bytes_ (under mutex_).
  void release(std::uint64_t bytes);
  // Sets alone_ for this epoch; `fresh`: it started afresh (under mutex_).
  void mark_alone(bool fresh);

  const Dataset& dataset_;
  const RemoteSettings settings_;
  const std::uint64_t window_bytes_;
  RemoteMirror* const mirror_;
  const bool scattered_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::uint32_t> order_;      // this epoch's samples, then the next's
  std::size_t epoch_end_ = 0;             // where the next epoch's begin in order_
  AlonePositions alone_;                  // of order_, for this epoch
  std::size_t this_epoch_in_flight_ = 0;  // GETs of this epoch's samples in flight
  // Set by start_epoch() for the window's thread to begin the next epoch with; reset once done.
  std::optional<std::vector<std::uint32_t>> begin_next_;
  std::map<std::uint64_t, Group> groups_;  // by id, until their last sample is taken
  std::vector<std::uint64_t> group_of_;    // per position: its group's id + 1; 0: none yet
  std::uint64_t next_id_ = 0;
  Ahead ahead_;
  std::size_t horizon_end_ = 0;
  std::uint64_t ahead_bytes_ = 0;
  std::optional<Group> staged_;  // formed, waiting for room in the window
  std::size_t next_submit_ = 0;  // the first position not grouped
  std::size_t next_take_ = 0;
  std::size_t wanted_ = 0;  // the position take() waits for
  std::uint64_t held_bytes_ = 0;
  bool stopping_ = false;
  std::exception_ptr failure_;
  io::FetchStats stats_;
  GroupSizer sizer_;  // of the groups past a scattered order's first window
  InFlightGrowth growth_;
  io::FetchClock::duration take_waited_{};  // take()'s waits for samples to arrive, in all
  // The statistics of every thread's fetcher in turn, so that the store's figures cover every
  // epoch, also after a start afresh (the window's thread only).
  io::FetchMeter meter_;
  io::RangeFetcher* fetcher_ = nullptr;  // the running thread's, for wake()
  std::thread thread_;
};

}  // namespace feedrate
