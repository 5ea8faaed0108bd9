// The run's counters, and the one place RunStats and a report's figures are computed from them
// (internal to loader/). Every stage records into it; Loader::stats() reads it, and
// Pipeline::report() takes its figures, attaches the cache's and the store's, and diagnoses them
// once (loader/diagnosis/diagnose.h). The pack cache's writer paces itself from pacing(), the
// few counters it needs.
//
// What is counted where: the read stage (I/O thread) its busy time, its CPU time, the reader's
// statistics and how long it waited for a slot; decode its busy time and CPU time per sample;
// the copier its assemble and submit time; the consumer its step time (between next() calls),
// its waits charged by cause, the batches in flight, and what it was handed (batches, images,
// skipped samples).
//
// Every duration comes from one clock, the pipeline's (io/clock.h).
//
// Thread-safety: every method may be called from any thread. Counters are atomics; the few
// composite figures (reader statistics, skipped list, in-flight samples) have a mutex each.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "feedrate/loader.h"
#include "feedrate/report.h"
#include "io/clock.h"
#include "io/reader.h"
#include "loader/cache/pacing.h"
#include "loader/pipeline/slot.h"

namespace feedrate {

class Telemetry {
 public:
  using Clock = io::Clock;

  // `clock` outlives the telemetry.
  Telemetry(RunSetting run, Clock& clock) : run_(std::move(run)), clock_(clock) {}

  Clock& clock() const { return clock_; }

  // The run's clock starts with the first epoch.
  void start();

  // Read stage (I/O thread).
  void read(Clock::time_point start, Clock::time_point end, const io::ReadStats& reader);
  // CPU time the I/O thread used since its last call.
  void io_cpu(std::uint64_t ns) { io_cpu_ns_ += ns; }
  void waited_for_slot(std::uint64_t ns, detail::Stall cause);
  // Decode stage (any worker).
  void decoded(std::uint64_t ns, std::uint64_t cpu_ns) {
    decode_ns_ += ns;
    decode_cpu_ns_ += cpu_ns;
  }
  // Copy stage: the bad-input policy, then the submit to the device.
  void assembled(std::uint64_t ns) { assemble_ns_ += ns; }
  void copied(std::uint64_t ns, std::uint64_t bytes);
  // CPU time (the worker's thread clock) of a slot's assembly and copy.
  void copy_cpu(std::uint64_t ns) { copy_cpu_ns_ += ns; }
  // Consumer thread.
  void consumer_step(std::uint64_t ns) { consumer_ns_ += ns; }
  void stalled(detail::Stall cause, std::uint64_t ns);
  void in_flight(std::size_t batches);
  // A batch reached the consumer: its images, and its skipped samples (also when it is empty).
  void delivered(const detail::Slot& slot);
  // Samples skipped outside a delivered batch (those lent by a read the epoch ended before).
  void skipped(const std::vector<SkippedSample>& samples);

  RunStats stats() const;
  // The report's figures (setting, rates, stages, figures); capacities, verdict and costs are
  // left for the one diagnosis.
  Report figures() const;
  // The counters the pack cache's pacing reads (loader/cache/pacing.h), `cores` decode threads
  // able to run at once.
  PacingCounters pacing(int cores) const;

 private:
  // Seconds since start(); 0 before it.
  double wall_seconds() const;
  // The CPU figures of every loader thread so far.
  void cpu_figures(RunFigures& figures) const;

  const RunSetting run_;
  Clock& clock_;
  std::atomic<Clock::duration::rep> run_start_{0};  // clock ticks of start(); 0 before

  std::atomic<std::uint64_t> batches_{0}, images_{0}, skipped_{0};
  std::atomic<std::uint64_t> read_ns_{0}, decode_ns_{0}, decode_cpu_ns_{0}, io_cpu_ns_{0};
  std::atomic<std::uint64_t> copy_cpu_ns_{0};
  std::atomic<std::uint64_t> read_blocked_ns_{0}, copy_blocked_ns_{0};
  std::atomic<std::uint64_t> assemble_ns_{0}, copy_ns_{0}, copy_bytes_{0}, consumer_ns_{0};
  std::atomic<std::uint64_t> stall_ns_[detail::kStallKinds] = {};
  std::atomic<std::uint64_t> bytes_read_{0}, read_operations_{0};

  mutable std::mutex io_mutex_;
  IoStats io_;
  mutable std::mutex skipped_mutex_;
  std::vector<SkippedSample> skipped_samples_;
  mutable std::mutex in_flight_mutex_;
  double in_flight_sum_ = 0, in_flight_max_ = 0;
  std::uint64_t in_flight_samples_ = 0;
};

}  // namespace feedrate
