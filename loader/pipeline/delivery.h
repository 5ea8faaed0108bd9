// Delivery (internal to loader/): the consumer's side of the pipeline. Hands out batches in
// sampler order and charges every wait to what the awaited batch was waiting on: its reads
// (io), its decodes (cpu), a slot to start in (ram), a copy (h2d). The time between next()
// calls is the consumer's own step. Times are the telemetry's clock's.
//
// Thread-safety: the consumer's thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "feedrate/trace.h"
#include "loader/pipeline/slot_ring.h"
#include "loader/pipeline/telemetry.h"

namespace feedrate {

class Delivery {
 public:
  Delivery(SlotRing& ring, Telemetry& telemetry, TraceRecorder& trace)
      : ring_(ring), telemetry_(telemetry), trace_(trace) {}

  // next() begins and ends: what lies between two calls is the consumer's step (`batch` is
  // the number of the batch it worked on).
  void entered(std::int64_t batch);
  void returned();

  // The oldest batch in flight once it is read (num_workers 0) or ready, held by the caller.
  // Calls `while_waiting` (may be empty) every few milliseconds while it waits; rethrows what
  // it throws, and the pipeline's failure (see SlotRing::take_front).
  detail::Slot* take(const std::function<void()>& while_waiting);

 private:
  using Clock = io::Clock;

  SlotRing& ring_;
  Telemetry& telemetry_;
  TraceRecorder& trace_;
  Clock::time_point last_return_{};  // when next() last returned
};

}  // namespace feedrate
