// Turns a run's measurements into a verdict: which resource holds training back, and advice in
// the user's terms derived from the measured per-sample costs. Every advice line gives the
// measured figure, the cause, and a remedy with the rate it would reach (projected with
// loader/throughput_model.h, as `feedrate plan` does) and what it costs (cores, RAM, a disk
// class). Internal to loader/ (and the bench, which appends packing_advice() from a measurement
// the loader does not make); pure functions, so scenarios are easy to test.
// Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/throttle.h"
#include "loader/report.h"

namespace feedrate {

struct VerdictInputs {
  double wall_s = 0;
  std::uint64_t images = 0;
  std::size_t batch_size = 1;
  // The consumer's waits in next(), charged to what the awaited batch was waiting on.
  double stall_io_s = 0, stall_cpu_s = 0, stall_ram_s = 0, stall_h2d_s = 0;
  double decode_busy_s = 0;  // summed over decode threads (and the consumer at num_workers 0)
  int num_workers = 1;
  int cpus = 1;                // available to this process (affinity and quota)
  int host_cpus = 0;           // online on the host; 0 when unknown
  double cpu_quota_cores = 0;  // the cgroup's CPU quota; 0 when none
  std::uint64_t bytes_read = 0;
  std::uint64_t read_operations = 0;
  unsigned queue_depth = 1;  // reads in flight at most
  io::ThrottleSpec disk;     // the emulated disk (--throttle); unlimited when the disk is unknown
  bool shards = false;       // samples are members of tar shards
  // What one read covers when shards are read in storage order (nearby members as one chunk).
  std::uint64_t chunk_bytes = 0;
  double consumer_busy_s = 0;      // time the consumer spent outside next()
  double target_images_per_s = 0;  // the training rate, when known (--consume-rate)
  std::uint64_t dataset_bytes = 0;
  std::uint64_t memory_bytes = 0;      // what this process may use
  bool container_limit = false;        // memory_bytes is a cgroup limit, not the host's RAM
  std::size_t in_flight_capacity = 1;  // batch slots
  std::size_t slot_bytes = 0;
  double copy_busy_s = 0;
  std::uint64_t copy_bytes = 0;
  bool shuffle_blocks = false;  // the order is already shuffle=blocks: sequential block reads
};

// Waits below this share of the wall time mean the loader keeps up.
inline constexpr double kStallThreshold = 0.05;
// The consumer's own time must be at least this share of the wall time to infer its rate.
inline constexpr double kMeasurableStepShare = 0.05;

Verdict judge(const VerdictInputs& in);

// What packing the dataset (`feedrate pack`) changes per image, measured outside the loader on
// a sample of the dataset's own JPEGs (by `feedrate bench`).
struct PackingGain {
  double decode_ratio = 1;  // packed over original decode CPU per image, train transform
  double bytes_ratio = 1;   // packed over original bytes
  std::size_t samples = 0;  // images measured
};

// The advice line a cpu verdict gets for `gain` (the caller appends it to the verdict's advice
// when decode_ratio < 1): the rate `decode_threads` deliver with the run's decode CPU per image
// scaled as loader/throughput_model.h's packed_costs() does, and what it costs (a copy of the
// dataset's `dataset_bytes`, scaled by bytes_ratio).
std::string packing_advice(const Report& report, int decode_threads, std::uint64_t dataset_bytes,
                           const PackingGain& gain);

}  // namespace feedrate
