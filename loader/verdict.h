// Turns a run's measurements into a verdict: which resource holds training back, and advice in
// the user's terms derived from the measured per-sample costs. Internal to loader/; a pure
// function, so scenarios are easy to test. Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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
  int cpus = 1;
  std::uint64_t bytes_read = 0;
  double consumer_busy_s = 0;      // time the consumer spent outside next()
  double target_images_per_s = 0;  // the training rate, when known (--consume-rate)
  std::uint64_t dataset_bytes = 0;
  std::uint64_t memory_bytes = 0;      // what this process may use
  std::size_t in_flight_capacity = 1;  // batch slots
  std::size_t slot_bytes = 0;
  double copy_busy_s = 0;
  std::uint64_t copy_bytes = 0;
  // For seek_bound_advice: the reads issued, the disk's limits where known (an emulated disk;
  // 0: unknown), and how the order and reads were planned.
  std::uint64_t read_operations = 0;
  double disk_mb_per_s = 0;
  double disk_iops = 0;
  bool tar_shards = false;
  bool shuffle_blocks = false;    // shuffle=blocks already
  std::uint64_t block_bytes = 0;  // tar_chunk_bytes
};

// Waits below this share of the wall time mean the loader keeps up.
inline constexpr double kStallThreshold = 0.05;
// The consumer's own time must be at least this share of the wall time to infer its rate.
inline constexpr double kMeasurableStepShare = 0.05;

Verdict judge(const VerdictInputs& in);

// When reads are seek-bound (reads/s near the disk's IOPS limit, each read small) on tar shards
// read in a full shuffle: the advice to shuffle in blocks (sequential reads of block_bytes) with
// the images/s that projects (the disk's time per block, capped by the decode threads); else
// empty. The disk's limits must be known (disk_iops > 0).
std::string seek_bound_advice(const VerdictInputs& in);

}  // namespace feedrate
