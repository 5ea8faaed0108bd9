// How a remote store's rate grew with the requests in flight, read off one run's in-flight bands
// (StoreFigures::by_in_flight), and what it would deliver with another number of them. Over the
// bands that hold at least kScalingBandShare of the busy time, when their mean requests span at
// least kScalingSpread times, the rate went as requests^e: e is the slope of log(rate) against
// log(requests), fitted by least squares weighted by each band's time, clamped to [0, 1]. Near 1,
// each request's time to first byte set the rate (Little's law: twice the requests, twice the
// bytes a second); near 0, the link or the store's bandwidth was full, and more requests lift
// nothing. The bands' shares keep a run's ramp-up and drain (a few requests in flight for a
// moment) out of the fit, and the weights keep a band of short moments from swinging it. A rate
// that fell as the requests grew (a slope below -kRateFell) is no full link: the requests did
// not set the rate, the reader set the requests (a read-ahead whose memory held only its GETs in
// flight, each of them slow to arrive, at a 150 ms time to first byte), so such a fit says
// nothing of how the store scales (fell()).
// Thread-safety: pure functions.
#pragma once

#include <algorithm>
#include <optional>

#include "feedrate/report.h"

namespace feedrate {

inline constexpr double kScalingBandShare = 0.1;
inline constexpr double kScalingSpread = 1.3;
// Below this elasticity more requests in flight are no remedy: the link (or the store) is full.
inline constexpr double kLinkFull = 0.25;
// Below minus this slope the rate fell with the requests: the fit says nothing.
inline constexpr double kRateFell = 0.25;

struct StoreScaling {
  double slope = 1;     // of log(rate) against log(requests)
  StoreBand low, high;  // the fitted bands with the fewest and the most requests

  // The slope, clamped to [0, 1].
  double elasticity() const { return std::clamp(slope, 0.0, 1.0); }
  bool fell() const { return slope < -kRateFell; }
};

// Empty when the bands that count span too few requests (a short run, or one that kept one
// number of requests in flight).
std::optional<StoreScaling> store_scaling(const StoreFigures& store);

// Bytes/s with `in_flight` requests: high's rate x (in_flight / high's requests)^elasticity.
double projected_bytes_per_s(const StoreScaling& scaling, double in_flight);

}  // namespace feedrate
