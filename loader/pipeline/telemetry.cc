#include "loader/pipeline/telemetry.h"

#include <algorithm>
#include <cmath>

#include "io/throttle.h"
#include "loader/diagnosis/capacity.h"
#include "loader/host/system_info.h"

namespace feedrate {
namespace {

using detail::Stall;

// The skipped samples listed by stats() (all are counted).
constexpr std::size_t kMaxListedSkips = 1000;

double seconds(std::uint64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

}  // namespace

void Telemetry::start() {
  Clock::duration::rep expected = 0;
  run_start_.compare_exchange_strong(expected, clock_.now().time_since_epoch().count());
}

void Telemetry::read(Clock::time_point start, Clock::time_point end, const io::ReadStats& reader) {
  read_ns_ += io::nanoseconds_between(start, end);
  bytes_read_.store(reader.bytes, std::memory_order_relaxed);
  read_operations_.store(reader.operations, std::memory_order_relaxed);
  std::lock_guard lock(io_mutex_);
  io_.backend = reader.backend_description;
  io_.throttle = io::describe(reader.throttle);
  io_.latency_p50_us = reader.latency_p50_us;
  io_.latency_p99_us = reader.latency_p99_us;
  io_.average_in_flight = reader.average_in_flight;
  io_.peak_in_flight = reader.peak_in_flight;
  io_.direct_io_fallbacks = reader.direct_io_fallbacks;
  io_.notes = reader.direct_io_fallback_reason;
  if (!reader.fixed_buffers_note.empty()) {
    io_.notes += (io_.notes.empty() ? "" : "; ") + reader.fixed_buffers_note;
  }
}

void Telemetry::waited_for_slot(std::uint64_t ns, Stall cause) {
  read_blocked_ns_ += ns;
  if (cause == Stall::kH2d) copy_blocked_ns_ += ns;
}

void Telemetry::copied(std::uint64_t ns, std::uint64_t bytes) {
  copy_ns_ += ns;
  copy_bytes_ += bytes;
}

void Telemetry::stalled(Stall cause, std::uint64_t ns) {
  stall_ns_[static_cast<int>(cause)] += ns;
}

void Telemetry::in_flight(std::size_t batches) {
  const auto value = static_cast<double>(batches);
  std::lock_guard lock(in_flight_mutex_);
  in_flight_sum_ += value;
  in_flight_max_ = std::max(in_flight_max_, value);
  ++in_flight_samples_;
}

void Telemetry::delivered(const detail::Slot& slot) {
  if (!slot.indices.empty()) {
    ++batches_;
    images_ += slot.indices.size();
  }
  skipped(slot.skipped);
}

void Telemetry::skipped(const std::vector<SkippedSample>& samples) {
  if (samples.empty()) return;
  skipped_ += samples.size();
  std::lock_guard lock(skipped_mutex_);
  for (const SkippedSample& s : samples) {
    if (skipped_samples_.size() < kMaxListedSkips) skipped_samples_.push_back(s);
  }
}

RunStats Telemetry::stats() const {
  RunStats stats;
  stats.batches = batches_;
  stats.images = images_;
  stats.skipped = skipped_;
  stats.bytes_read = bytes_read_;
  stats.read_operations = read_operations_;
  stats.io_backend = run_.io_backend;
  stats.io_fallback_reason = run_.io_fallback_reason;
  stats.device = run_.device;
  {
    std::lock_guard lock(io_mutex_);
    stats.io = io_;
  }
  std::lock_guard lock(skipped_mutex_);
  stats.skipped_samples = skipped_samples_;
  return stats;
}

double Telemetry::wall_seconds() const {
  const Clock::duration::rep start = run_start_;
  if (start == 0) return 0;
  return std::chrono::duration<double>(clock_.now() - Clock::time_point(Clock::duration(start)))
      .count();
}

void Telemetry::cpu_figures(RunFigures& f) const {
  f.decode_busy_s = seconds(decode_ns_);
  f.decode_cpu_s = seconds(decode_cpu_ns_);
  // Every part from thread CPU clocks: the copy stage's wall time may include time its worker
  // did not run (preempted, or a fake clock moved meanwhile).
  f.loader_cpu_s = f.decode_cpu_s + seconds(io_cpu_ns_) + seconds(copy_cpu_ns_);
}

PacingCounters Telemetry::pacing(int cores) const {
  PacingCounters counters;
  counters.wall_s = wall_seconds();
  counters.delivered = images_;
  counters.decoded = counters.delivered;
  counters.decode_busy_s = seconds(decode_ns_);
  counters.cores = cores;
  if (counters.wall_s > 0 && counters.delivered > 0) {
    RunFigures f;
    cpu_figures(f);
    const double cpu = cpu_capacity_images_per_s(run_, image_costs(f, counters.delivered));
    if (std::isfinite(cpu)) counters.cpu_capacity_images_per_s = cpu;
  }
  return counters;
}

Report Telemetry::figures() const {
  Report r;
  r.run = run_;
  r.in_flight_capacity = static_cast<double>(run_.prefetch_batches);
  if (run_start_ == 0) return r;
  r.wall_s = wall_seconds();
  r.images = images_;

  RunFigures& f = r.figures;
  f.batches = batches_;
  f.bytes_read = bytes_read_;
  f.read_operations = read_operations_;
  f.read_busy_s = seconds(read_ns_);
  f.read_blocked_s = seconds(read_blocked_ns_);
  cpu_figures(f);
  f.assemble_busy_s = seconds(assemble_ns_);
  f.copy_busy_s = seconds(copy_ns_);
  f.copy_bytes = copy_bytes_;
  f.copy_blocked_s = seconds(copy_blocked_ns_);
  f.consumer_busy_s = seconds(consumer_ns_);
  f.stall_io_s = seconds(stall_ns_[static_cast<int>(Stall::kIo)]);
  f.stall_cpu_s = seconds(stall_ns_[static_cast<int>(Stall::kCpu)]);
  f.stall_ram_s = seconds(stall_ns_[static_cast<int>(Stall::kRam)]);
  f.stall_h2d_s = seconds(stall_ns_[static_cast<int>(Stall::kH2d)]);
  f.peak_rss_bytes = peak_rss_bytes();

  if (r.wall_s > 0) {
    r.images_per_s = static_cast<double>(r.images) / r.wall_s;
    r.mb_per_s = static_cast<double>(f.bytes_read) / 1e6 / r.wall_s;
  }
  {
    std::lock_guard lock(in_flight_mutex_);
    if (in_flight_samples_ > 0) r.in_flight_mean = in_flight_sum_ / in_flight_samples_;
    r.in_flight_max = in_flight_max_;
  }
  if (f.batches > 0) {
    r.consumer_ms_per_batch = f.consumer_busy_s * 1e3 / static_cast<double>(f.batches);
  }

  const auto stage = [&](const char* name, std::uint64_t items, std::uint64_t stage_bytes,
                         double busy, double starved, double blocked, double threads) {
    StageFigures s{name, items, stage_bytes, busy, starved, blocked, threads, 0};
    if (r.wall_s > 0) s.utilization = busy / (threads * r.wall_s);
    r.stages.push_back(s);
  };
  const double workers = std::max(1, run_.num_workers);
  stage("read", f.read_operations, f.bytes_read, f.read_busy_s, 0, f.read_blocked_s, 1);
  stage("decode", r.images, 0, f.decode_busy_s, std::max(0.0, workers * r.wall_s - f.decode_busy_s),
        0, workers);
  stage("assemble", f.batches, 0, f.assemble_busy_s, 0, 0, 1);
  stage("copy", f.batches, f.copy_bytes, f.copy_busy_s, 0, f.copy_blocked_s, 1);
  stage("consumer", f.batches, 0, f.consumer_busy_s, f.stalled_s(), 0, 1);
  return r;
}

}  // namespace feedrate
