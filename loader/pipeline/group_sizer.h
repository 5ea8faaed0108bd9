// How large the remote read-ahead's grouped GETs are (internal to loader/, used by
// ReadAheadPlanner): the window's share per request in flight (large GETs, which a store that
// answers slowly needs: each round trip carries more), or a few round trips of the link's rate
// per request (small ones, which a full link needs: bytes queued behind it wait in flight, where
// they fill the window without being ready to decode).
//
// The choice is made from the GETs of a scattered order's first window (shuffle=blocks), which
// go a sample each, once max_in_flight of them (and kLeastGets) have ended: when a GET took
// longer than its time to first byte (mean against median) by more than kQueued of it and
// kQueuedMs, its body waited behind the others' on the link, and the groups shrink to kRoundTrips
// round trips of the rate seen per request in flight (with the quick end of the time to first byte,
// which that queueing lengthens); when its body came at once, the round trip is the limit, and they
// stay at the share, as they do when there was no such window. Made once, the choice holds for
// every later epoch.
//
// Thread-safety: none; one thread (the window's) calls it, under the window's lock.
#pragma once

#include <cstdint>
#include <optional>

#include "io/remote/fetch_stats.h"

namespace feedrate {

class GroupSizer {
 public:
  static constexpr double kQueued = 0.2;
  static constexpr double kQueuedMs = 5;
  static constexpr std::uint64_t kLeastGets = 16;
  static constexpr double kRoundTrips = 2;

  // The share: `window_bytes` / max_in_flight.
  GroupSizer(unsigned max_in_flight, std::uint64_t window_bytes);

  // Whether the GETs so far took longer than their time to first byte (mean against median) by
  // more than kQueued of it and kQueuedMs: their bodies waited behind the others' on the link.
  static bool queued(const io::FetchStats& stats);
  // The read-ahead now keeps `max_in_flight` GETs in flight (loader/pipeline/in_flight_growth.h):
  // the share follows, and a smaller bound the link set stays.
  void requests_changed(unsigned max_in_flight);

  // The fetcher's figures as of its latest poll; `grouping`: the read-ahead forms a group now
  // (past a first window that goes a sample a GET, or with none). Chooses at the first call
  // with `grouping`, before that group is formed.
  void observe(const io::FetchStats& stats, bool grouping);

  // The most bytes a group may hold now (a group of one sample may hold more).
  std::uint64_t most() const { return most_; }
  bool decided() const { return decided_; }
  // Whether the choice found the bodies queued on a full link; empty until it was made from
  // enough GETs of a sample each.
  std::optional<bool> link_full() const { return link_full_; }

 private:
  const std::uint64_t window_bytes_;
  unsigned requests_;
  std::uint64_t share_;
  std::uint64_t most_;
  bool decided_ = false;
  std::optional<bool> link_full_;
};

}  // namespace feedrate
