// A timeline of a run for Perfetto / chrome://tracing: a span per sample per stage (read,
// decode), per batch (assemble, copy, wait, consumer) and counters for the batches in flight.
// Recorded only when LoaderOptions::trace is set; Loader::trace() hands the events over.
// Thread-safety: TraceRecorder::span/counter may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "feedrate/export.h"

namespace feedrate {

struct TraceEvent {
  const char* name = "";  // a stage name, or a counter's
  char phase = 'X';       // 'X' a complete span, 'C' a counter sample
  std::uint32_t thread = 0;
  double start_us = 0;  // since the recorder was created
  double duration_us = 0;
  std::int64_t value = 0;  // spans: the sample index (or batch number); counters: the value
};

class FEEDRATE_API TraceRecorder {
 public:
  using Clock = std::chrono::steady_clock;
  // Events are timed from `origin`, a time of the clock that times them (the loader's). At most
  // `capacity` events are kept; later ones are counted as dropped.
  TraceRecorder(bool enabled, Clock::time_point origin, std::size_t capacity = 4'000'000);

  bool enabled() const { return enabled_; }
  void span(const char* name, Clock::time_point start, Clock::time_point end, std::int64_t value);
  // The counter's value at time `at`.
  void counter(const char* name, Clock::time_point at, std::int64_t value);
  // A copy of the events so far and the names of the threads that recorded them.
  std::vector<TraceEvent> events() const;
  std::vector<std::string> thread_names() const;
  std::uint64_t dropped() const;

 private:
  std::uint32_t thread_id();
  double since_start_us(Clock::time_point t) const;

  const bool enabled_;
  const std::size_t capacity_;
  const Clock::time_point origin_;
  mutable std::mutex mutex_;
  std::vector<TraceEvent> events_;
  std::vector<std::string> thread_names_;
  std::uint64_t dropped_ = 0;
};

}  // namespace feedrate
