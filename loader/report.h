// What a run measured and what holds training back: per-stage figures, the consumer's stalls
// charged to their causes, and a verdict with advice. Loader::report() returns one at any time
// during a run. Thread-safety: a plain value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace feedrate {

// One pipeline stage: read (I/O thread), decode (the workers), assemble (bad-input policy and
// batch hand-over), copy (to the device), consumer (the training loop between next() calls).
struct StageFigures {
  std::string name;
  std::uint64_t items = 0;  // samples (read, decode) or batches (assemble, copy, consumer)
  std::uint64_t bytes = 0;
  double busy_s = 0;     // working
  double starved_s = 0;  // waiting for input from the stage before
  double blocked_s = 0;  // waiting for room in the stage after
  double threads = 1;    // decode: num_workers
  // busy / (threads x wall time)
  double utilization = 0;
};

// The verdict: which resource holds training back.
//   io       reads are not done when the consumer needs them (the disk, or its emulation)
//   cpu      decodes are not done (more cores or cheaper decoding would help)
//   ram      in-flight work is capped by the memory budget (more slots would hide latency)
//   h2d      the copy to the GPU is not done
//   consumer nothing: the loader keeps up, training is the limit
struct Verdict {
  std::string bottleneck = "consumer";
  double stall_fraction = 0;  // share of the wall time the consumer spent waiting
  double stall_io_s = 0, stall_cpu_s = 0, stall_ram_s = 0, stall_h2d_s = 0;
  std::vector<std::string> advice;  // concrete, in the user's terms
};

// The pack cache (LoaderOptions::cache_dir, loader/pack_cache.h): what it holds, how much of
// the run it served, and what caching cost. All zero when the cache is off.
struct CacheFigures {
  bool enabled = false;
  std::string folder;         // the source's folder in cache_dir
  std::uint64_t samples = 0;  // with an entry, of dataset_samples
  std::uint64_t dataset_samples = 0;
  std::uint64_t bytes = 0;             // of those entries
  std::uint64_t source_bytes = 0;      // of the same samples in the source
  std::uint64_t disk_bytes = 0;        // of the segments on disk (superseded entries included)
  std::uint64_t hits = 0, misses = 0;  // samples this run read from the cache / the source
  double hit_rate = 0;                 // hits / (hits + misses)
  std::uint64_t fallbacks = 0;         // cached samples that read badly: read from the source
  // What caching cost this run: entries written (transcoded JPEGs, samples stored unchanged),
  // their bytes, and the writer thread's CPU time.
  std::uint64_t transcoded = 0, unchanged = 0, written_bytes = 0;
  double cpu_s = 0;
  std::uint64_t declined = 0;         // samples not queued: the writer was behind (pacing)
  double allowed_per_s = 0;           // the pacing's last decision, transcodes/s
  bool stopped = false;               // cache_gb reached, disk full or a write error
  std::vector<std::string> warnings;  // the first few problems, also printed to stderr
};

struct Report {
  // Which process of a distributed run measured this (DistributedSampler's rank / world size).
  int rank = 0, world_size = 1;
  double wall_s = 0;
  std::uint64_t images = 0;
  double images_per_s = 0;
  double mb_per_s = 0;
  // Per-sample costs behind the advice.
  double decode_cpu_ms_per_image = 0;
  double read_bytes_per_image = 0;
  double consumer_ms_per_batch = 0;  // the training step, as the loader saw it
  double in_flight_mean = 0, in_flight_max = 0, in_flight_capacity = 0;  // batches
  std::vector<StageFigures> stages;
  Verdict verdict;
  CacheFigures cache;
};

}  // namespace feedrate
