// The projection behind `feedrate plan`: from a run's measured per-image costs (RunCosts) and
// the GPUs' demand, what an instance needs, and what a given instance shape would deliver.
//
// Model (every input but the instance shape and the GPU rate is measured):
//   CPU   one decode worker per core (loader/diagnosis/throughput_model.h, which the verdict's
//   advice
//         shares; the training loop's own CPU is not counted);
//   disk  a disk class (io/disk_class.h) delivers what loader/diagnosis/throughput_model.h
//   projects; it
//         binds the first epoch, and every epoch when the dataset cannot stay in page cache;
//   RAM   one loader per GPU (its measured peak RSS each), plus the dataset when it is to stay
//         in page cache across epochs, and at least one GPU's memory (docs/domain.md); an instance
//         with less RAM than the loaders need is killed, not slowed;
//   GPUs  busy = delivered / demanded; the target is >= kBusyTarget (90%, MLPerf Storage's bar).
// The same projection for the run's reads under the other shuffle mode, and for its decode cost
// with the dataset packed (both from loader/diagnosis/throughput_model.h, so plan and verdict
// agree). Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "feedrate/resource.h"
#include "feedrate/run_costs.h"
#include "io/throttle.h"

namespace feedrate::bench {

inline constexpr double kBusyTarget = 0.9;

struct Demand {
  double images_per_s = 0;  // all GPUs together, at full speed
  int gpus = 1;
  double gpu_memory_gb = 0;  // per GPU; 0 when unknown
};

struct Instance {
  std::string label;  // as given: "8,64,nvme"
  int cores = 1;
  double ram_gb = 0;
  std::string disk;  // a class name or MBPS[,IOPS[,LATENCY_US]]; "" = not limited
  io::ThrottleSpec disk_spec;
  // The run's own machine, as it ran: project() then takes from the costs the run's decode
  // threads (setting.num_workers; elsewhere one per core), the share of its cores the run got
  // (image.cpu_share; elsewhere 1) and what its disk delivered (disk_images_per_s, when
  // recorded; elsewhere only disk_spec limits), so that its projection is the capacity model's
  // (loader/diagnosis/capacity.h) and names the verdict's bottleneck.
  bool runs_as_measured = false;
};

// Parses "cores,ram_gb,disk" (the disk part may hold commas: "8,64,500,20000"). Throws
// std::invalid_argument naming the text.
Instance parse_instance(const std::string& text);

struct Requirements {
  double images_per_s = 0;  // kBusyTarget x demand
  int cores = 0;
  double loader_ram_gb = 0;  // one loader per GPU
  double ram_gb = 0;         // without the dataset in page cache
  double ram_cached_gb = 0;  // with it
  double disk_mb_per_s = 0;  // the first epoch (every epoch without the cache)
  double disk_iops = 0;
  std::string disk_class;  // the slowest class that delivers it; "" when none does
  double h2d_mb_per_s_per_gpu = 0;
};

Requirements requirements(const RunCosts& costs, const Demand& demand);

struct Projection {
  double cpu_images_per_s = 0;
  double disk_images_per_s = 0;  // infinity when the disk is not limited
  bool ram_enough = true;        // the loaders fit
  bool dataset_cached = false;   // the dataset stays in page cache across epochs
  bool ram_below_gpu = false;    // RAM < one GPU's memory (docs/domain.md's rule)
  double first_epoch_images_per_s = 0;
  double later_epochs_images_per_s = 0;
  double gpu_busy = 0;  // later epochs
  // Later epochs: cpu, io, ram, or consumer (the GPUs are the limit), in the verdict's words.
  Resource binding = Resource::kConsumer;
  Resource first_epoch_binding = Resource::kConsumer;
};

Projection project(const RunCosts& costs, const Demand& demand, const Instance& instance);

// Images/s a disk delivers for these costs (infinity when not limited).
double disk_images_per_s(const RunCosts& costs, const io::ThrottleSpec& disk);

// One shuffle mode's reads for a run, and what they need and deliver
// (loader/diagnosis/throughput_model.h's costs_under_shuffle(); a folder or file list reads a file
// per sample whatever its order, so its blocks are projected as if packed into tar shards first).
struct ShuffleProjection {
  std::string mode;           // "full" (per-sample random reads) or "blocks" (whole blocks)
  bool measured = false;      // the run read in this mode (or in storage order, for blocks)
  bool needs_shards = false;  // blocks of a dataset that is not in tar shards yet
  // The run's costs with this mode's reads (and no measured disk rate when it did not read so).
  RunCosts costs;
  double bytes_per_read = 0;
  Requirements needs;     // for the demand (the disk fields are the mode's own)
  Projection projection;  // on the instance given
};

// full, then blocks (none when the run records no block size: an older run, or a tar run with
// --tar-chunk-kb 0).
std::vector<ShuffleProjection> shuffle_projections(const RunCosts& costs, const Demand& demand,
                                                   const Instance& instance);

// The run's costs with the dataset packed (costs.packed measured:
// loader/diagnosis/throughput_model.h's packed_costs(), and the dataset's bytes scaled as its
// images' are); unchanged otherwise.
RunCosts packed_run_costs(const RunCosts& costs);

}  // namespace feedrate::bench
