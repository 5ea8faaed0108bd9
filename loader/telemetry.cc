#include "loader/telemetry.h"

#include <algorithm>

#include "io/throttle.h"
#include "loader/verdict.h"

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
  Clock::rep expected = 0;
  run_start_.compare_exchange_strong(expected, Clock::now().time_since_epoch().count());
}

void Telemetry::read(Clock::time_point start, Clock::time_point end, const io::ReadStats& reader) {
  read_ns_ += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
  bytes_read_.store(reader.bytes, std::memory_order_relaxed);
  read_operations_.store(reader.operations, std::memory_order_relaxed);
  std::lock_guard lock(io_mutex_);
  io_.backend = reader.backend_description;
  io_.throttle = io::describe(reader.throttle);
  disk_ = reader.throttle;
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
  if (slot.skipped.empty()) return;
  skipped_ += slot.skipped.size();
  std::lock_guard lock(skipped_mutex_);
  for (const SkippedSample& s : slot.skipped) {
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
  stats.io_backend = context_.io_backend;
  stats.io_fallback_reason = context_.io_fallback_reason;
  stats.device = context_.device;
  {
    std::lock_guard lock(io_mutex_);
    stats.io = io_;
  }
  std::lock_guard lock(skipped_mutex_);
  stats.skipped_samples = skipped_samples_;
  return stats;
}

Report Telemetry::report() const {
  Report r;
  const Clock::rep start = run_start_;
  if (start == 0) return r;
  r.rank = context_.rank;
  r.world_size = context_.world_size;
  r.wall_s = std::chrono::duration<double>(Clock::now() - Clock::time_point(Clock::duration(start)))
                 .count();
  r.images = images_;
  const std::uint64_t batches = batches_;
  const std::uint64_t bytes = bytes_read_;
  if (r.wall_s > 0) {
    r.images_per_s = static_cast<double>(r.images) / r.wall_s;
    r.mb_per_s = static_cast<double>(bytes) / 1e6 / r.wall_s;
  }
  {
    std::lock_guard lock(in_flight_mutex_);
    if (in_flight_samples_ > 0) r.in_flight_mean = in_flight_sum_ / in_flight_samples_;
    r.in_flight_max = in_flight_max_;
  }
  r.in_flight_capacity = static_cast<double>(context_.slots);

  const double decode_s = seconds(decode_ns_);
  const double consumer_s = seconds(consumer_ns_);
  double stalls[detail::kStallKinds];
  double waited = 0;
  for (int k = 0; k < detail::kStallKinds; ++k) waited += stalls[k] = seconds(stall_ns_[k]);
  if (r.images > 0) {
    r.decode_cpu_ms_per_image = decode_s * 1e3 / static_cast<double>(r.images);
    r.read_bytes_per_image = static_cast<double>(bytes) / static_cast<double>(r.images);
  }
  if (batches > 0) r.consumer_ms_per_batch = consumer_s * 1e3 / static_cast<double>(batches);

  const auto stage = [&](const char* name, std::uint64_t items, std::uint64_t stage_bytes,
                         double busy, double starved, double blocked, double threads) {
    StageFigures f{name, items, stage_bytes, busy, starved, blocked, threads, 0};
    if (r.wall_s > 0) f.utilization = busy / (threads * r.wall_s);
    r.stages.push_back(f);
  };
  const double workers = std::max(1, context_.num_workers);
  stage("read", read_operations_, bytes, seconds(read_ns_), 0, seconds(read_blocked_ns_), 1);
  stage("decode", r.images, 0, decode_s, std::max(0.0, workers * r.wall_s - decode_s), 0, workers);
  stage("assemble", batches, 0, seconds(assemble_ns_), 0, 0, 1);
  stage("copy", batches, copy_bytes_, seconds(copy_ns_), 0, seconds(copy_blocked_ns_), 1);
  stage("consumer", batches, 0, consumer_s, waited, 0, 1);

  VerdictInputs in;
  in.wall_s = r.wall_s;
  in.images = r.images;
  in.batch_size = context_.batch_size;
  in.stall_io_s = stalls[static_cast<int>(Stall::kIo)];
  in.stall_cpu_s = stalls[static_cast<int>(Stall::kCpu)];
  in.stall_ram_s = stalls[static_cast<int>(Stall::kRam)];
  in.stall_h2d_s = stalls[static_cast<int>(Stall::kH2d)];
  in.decode_busy_s = decode_s;
  in.num_workers = context_.num_workers;
  in.cpus = context_.cpus;
  in.host_cpus = context_.host_cpus;
  in.cpu_quota_cores = context_.cpu_quota_cores;
  in.bytes_read = bytes;
  in.read_operations = read_operations_;
  in.queue_depth = context_.queue_depth;
  in.shards = context_.shards;
  in.chunk_bytes = context_.chunk_bytes;
  {
    std::lock_guard lock(io_mutex_);
    in.disk = disk_;
  }
  in.consumer_busy_s = consumer_s;
  in.target_images_per_s = context_.training_images_per_s;
  in.dataset_bytes = context_.dataset_bytes;
  in.memory_bytes = context_.memory_bytes;
  in.container_limit = context_.container_limit;
  in.in_flight_capacity = context_.slots;
  in.slot_bytes = context_.slot_bytes;
  in.copy_busy_s = seconds(copy_ns_);
  in.copy_bytes = copy_bytes_;
  in.shuffle_blocks = context_.shuffle_blocks;
  r.verdict = judge(in);
  return r;
}

}  // namespace feedrate
