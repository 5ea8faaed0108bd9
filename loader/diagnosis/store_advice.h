// The io advice for a remote source (s3://, https://): what the store's figures say
// (Report::store: requests in flight, time to first byte, bytes/s per connection and in all),
// and which remedy lifts the rate, projected with the capacity model (capacity.h's lifted()):
//   io.store             the finding: how the store delivered, and how its rate grew with the
//                        requests in flight (store_scaling.h)
//   io.store_in_flight   more requests in flight, when the read-ahead kept its limit busy and
//                        the rate grew with them: as requests^e where the bands measured e,
//                        else in proportion (Little's law: requests/s = requests in flight /
//                        time per request)
//   io.store_requests    fewer, larger requests: tar shards instead of one object per image
//   io.cache_dir         the samples cached on the local disk as they arrive, for later epochs
// A remedy of the first two kinds is offered only when it projects at least kLeastLift times what
// the capacities allow now (with the decodes close behind, more from the store lifts nothing);
// the cache is offered whatever it projects, since later epochs then no longer pay the store's
// traffic.
// Thread-safety: a pure function.
#pragma once

#include <vector>

#include "feedrate/report.h"

namespace feedrate {

inline constexpr double kLeastLift = 1.05;

void store_advice(const Report& report, std::vector<Advice>& advice);

}  // namespace feedrate
