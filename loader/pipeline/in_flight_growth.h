// How many GETs the remote read-ahead keeps in flight (internal to loader/, used by
// ReadAheadPlanner): the requests asked for (io_queue_depth), doubled once when the run shows that
// the requests, not the link nor the decodes, held the read-ahead back. A store that answers slowly
// (S3 documents 100-200 ms to the first byte) then gets twice the requests over the same window of
// memory.
//
// The choice is made from the time between the first window's bytes and kWindows windows' (past
// the first window's fill, when every batch waits). The requests double when:
//   - the batches waited for the store: take() waited at least kStarved of that time (were the
//     decodes slower than the store, its bytes would wait for them instead);
//   - the read-ahead kept at least kBusy of its requests in flight on average (they bound it);
//   - the GETs' bodies did not queue on a full link (more requests would only wait behind the
//     others): the caller says so (`queued`), from the GETs of a sample each that tell it
//     (GroupSizer::queued(); a GET of many samples outlasts its time to first byte on any link);
// Otherwise they stay, as they do once decided: the choice holds for the window's later epochs.
// A read-ahead started afresh before the choice (start_epoch() that keeps nothing) measures anew
// from its own first window, whose fill every batch waits for.
//
// Thread-safety: none; one thread (the window's) calls it, under the window's lock.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "io/clock.h"
#include "io/remote/fetch_stats.h"

namespace feedrate {

class InFlightGrowth {
 public:
  static constexpr double kWindows = 2;
  static constexpr double kBusy = 0.9;
  static constexpr double kStarved = 0.25;
  static constexpr unsigned kMostRequests = 1024;

  InFlightGrowth(unsigned requests, std::uint64_t window_bytes);

  // At a poll `now`: the fetcher's figures as of it, whether the GETs' bodies queued on the link,
  // and the time take() has waited in all; chooses once kWindows windows have arrived.
  void observe(const io::FetchStats& stats, bool queued, io::Clock::duration waited,
               io::Clock::time_point now);

  // The read-ahead starts afresh; `bytes`: the fetcher's figures' bytes so far.
  void restarted(std::uint64_t bytes);

  // The GETs the read-ahead may keep in flight now.
  unsigned requests() const { return requests_; }
  // Those it was allowed on average over `busy_seconds` of the store's busy time (the requests
  // before the growth, then twice them), against which its requests in flight on average are
  // read.
  double allowed_on_average(double busy_seconds) const;
  // The most it may ever keep: what the fetcher is made for.
  unsigned ceiling() const { return ceiling_; }
  bool decided() const { return decided_; }

 private:
  const unsigned asked_;
  unsigned requests_;
  const unsigned ceiling_;
  std::uint64_t from_bytes_ = 0;  // counted from: the bytes at the latest start afresh
  double grown_at_s_ = 0;         // the store's busy seconds when the requests doubled
  const std::uint64_t window_bytes_;
  // As of the poll that saw the first window's bytes arrived.
  std::optional<std::pair<io::Clock::duration, io::Clock::time_point>> since_;
  bool decided_ = false;
};

}  // namespace feedrate
