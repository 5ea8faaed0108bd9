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
#include <optional>

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
  // The k-th batch in flight once it is ready, left in flight (SlotRing::peek), its wait
  // charged as take()'s; nullptr when it cannot come (the consumer holds every other slot).
  detail::Slot* peek(std::size_t k, const std::function<void()>& while_waiting);

 private:
  using Clock = io::Clock;

  // One slice's wait: the slot, nullptr when the slice passed, nullopt when none can come.
  using Attempt = std::optional<detail::Slot*>;
  // Calls `attempt` until it gives a slot or says none can come (then returns nullptr),
  // charging each slice's wait to the stall it names and running `while_waiting` between them.
  detail::Slot* wait(const std::function<void()>& while_waiting,
                     const std::function<Attempt(std::optional<detail::Stall>*)>& attempt);

  SlotRing& ring_;
  Telemetry& telemetry_;
  TraceRecorder& trace_;
  Clock::time_point last_return_{};  // when next() last returned
};

}  // namespace feedrate
