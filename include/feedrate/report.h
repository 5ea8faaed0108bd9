// What a run measured and what holds training back. Loader::report() returns one at any time
// during a run (since its first epoch began), in parts:
//   run         what the run is (fixed when the loader is built: workers, cores, memory, disk,
//               device)
//   wall_s, images, images_per_s, mb_per_s, consumer_ms_per_batch, in_flight_*
//               the delivery so far
//   figures     what it measured (totals: busy and CPU time per stage, bytes, the consumer's
//               waits charged to their causes, peak RSS)
//   stages      the figures per pipeline stage, for people
//   cache       the cache's figures (LoaderOptions::cache_dir: the pack cache of a local
//               source, the stored copy of a remote one)
//   store       a remote source's store: its requests, time to first byte and rate by requests
//               in flight
//   capacities  what each resource alone would sustain (loader/diagnosis/capacity.h), derived
//               from run, figures and store
//   verdict     which resource binds, and advice as data (loader/diagnosis/verdict.h), from the
//               capacities and the parts above, cache included
//   costs       the per-image costs `feedrate plan` projects from (include/feedrate/run_costs.h)
// The per-image figures (decode CPU, bytes read) are costs.image's alone; the report's JSON, built
// once (loader/diagnosis/report_document.h), writes them from there.
// Thread-safety: a plain value.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "feedrate/export.h"
#include "feedrate/resource.h"
#include "feedrate/run_costs.h"

namespace feedrate {

// What a run is, fixed when the pipeline is built: what the figures are judged against. The part
// its costs carry is the CostSetting it derives from (include/feedrate/run_costs.h).
struct RunSetting : CostSetting {
  std::size_t slot_bytes = 0;        // staging bytes of a batch's images
  int image_size = 0;                // output images are image_size x image_size
  double training_images_per_s = 0;  // the training rate, when given (--consume-rate)
  int host_cpus = 0;                 // online on the host; 0 when unknown
  double cpu_quota_cores = 0;        // the cgroup's CPU quota; 0 when none
  std::uint64_t memory_bytes = 0;    // what this process may use
  bool container_limit = false;      // memory_bytes is a cgroup limit, not the host's RAM
  int rank = 0, world_size = 1;      // DistributedSampler's rank / world size
  std::string io_backend;            // io::backend_name
  std::string io_fallback_reason;
  std::string device;  // "host", "cuda:0", ...
};

// What a run measured, as totals since its first epoch began.
struct RunFigures {
  std::uint64_t batches = 0;  // delivered
  std::uint64_t bytes_read = 0, read_operations = 0;
  double read_busy_s = 0;     // the I/O thread reading (not waiting for a slot)
  double read_blocked_s = 0;  // the I/O thread waiting for a free slot
  double decode_busy_s = 0;   // wall time of decodes, summed over the threads that ran them
  double decode_cpu_s = 0;    // CPU time of those decodes
  double loader_cpu_s = 0;    // CPU time of every loader thread: decodes, the I/O thread, copies
  double assemble_busy_s = 0;
  double copy_busy_s = 0;
  std::uint64_t copy_bytes = 0;
  double copy_blocked_s = 0;   // reads waiting for a copy to finish with a staging buffer
  double consumer_busy_s = 0;  // the consumer outside next()
  // The consumer's waits in next(), charged to what the awaited batch was waiting on: evidence,
  // not the verdict (a disk-bound run also waits on batches that are decoding).
  double stall_io_s = 0, stall_cpu_s = 0, stall_ram_s = 0, stall_h2d_s = 0;
  std::uint64_t peak_rss_bytes = 0;  // this process's peak resident set (VmHWM)

  double stalled_s() const { return stall_io_s + stall_cpu_s + stall_ram_s + stall_h2d_s; }
};

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

// What one resource alone would sustain, in images/s. The resources (include/feedrate/resource.h
// owns them and their words), and what bounds each:
//   io       reads per busy second, capped by the emulated limits
//   cpu      the decode threads and the cores this process may use
//   ram      the batches in flight that the memory budget (prefetch_batches) allows
//   h2d      the copy to the GPU
//   consumer the training step: the loader keeps up, training is the limit
struct Capacity {
  Resource resource = Resource::kIo;
  bool measured = false;    // false: the run says nothing about it (no GPU, a bare loop)
  double images_per_s = 0;  // infinity when measured and unlimited
  double headroom = 0;      // images_per_s / the delivered rate
  std::string basis;        // how it was derived, in the user's terms
};

// The time a batch needs its slot when it waits on nothing (behind the ram capacity).
struct SlotCycle {
  double read_s = 0, decode_s = 0, copy_s = 0, held_s = 0;
  double slots = 1;       // batches in flight at most
  double batch_size = 1;  // images per batch

  double total_s() const { return read_s + decode_s + copy_s + held_s; }
};

struct FEEDRATE_API Capacities {
  double delivered = 0;                                  // images/s
  std::array<Capacity, kAllResources.size()> resources;  // in kAllResources' order
  SlotCycle cycle;

  const Capacity& of(Resource resource) const;
};

// An option a remedy sets: a LoaderOptions field's name and its value in that option's words
// ("shuffle", "blocks"; "num_workers", "8"). Each front end spells it its own way: the command
// line `--shuffle blocks`, Python `shuffle="blocks"`.
struct OptionSetting {
  std::string option;
  std::string value;
};

// One advice line as data: what was found, what would lift it, to what rate, at what cost.
// A finding alone leaves remedy empty (and projected at 0).
struct Advice {
  std::string kind;   // stable id, e.g. "io.bandwidth", "cpu.workers", "page_cache"
  std::string cause;  // the measured figure and what it means
  // What to do, in the user's terms; "{0}", "{1}", ... stand for settings[0], settings[1], ...
  // as the front end spells them (loader/diagnosis/verdict_text.h's advice_text()).
  std::string remedy;
  std::vector<OptionSetting> settings;
  double projected_images_per_s = 0;
  std::string cost;  // cores, RAM, a disk class, a copy of the dataset, or "no hardware"
};

// The verdict: which resource holds training back.
struct Verdict {
  // Absent before anything was measured: its JSON and text say "none".
  std::optional<Resource> bottleneck;
  // Within kCloseMargin of the bottleneck's capacity; absent when none is (JSON: ""). It may lie
  // below it where the run's evidence settled a tie (a remote store that kept its requests in
  // flight binds before decodes estimated a little lower).
  std::optional<Resource> runner_up;
  bool reached = false;       // the delivered rate reaches the lowest capacity
  double stall_fraction = 0;  // share of the wall time the consumer spent waiting
  std::vector<Advice> advice;
};

// The pack cache (LoaderOptions::cache_dir, loader/cache/pack_cache.h): what it holds, how much of
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

// A remote source's store (s3://, https://; loader/pipeline/read_ahead_runner.h): how its reads
// went, for the io capacity and its advice. All zero for a local dataset.
// The store's rate while a number of requests within a band (1, 2-3, 4-7, ...) was in flight.
struct StoreBand {
  double in_flight = 0;  // requests, on average over the band's time
  double busy_s = 0;     // time in the band
  double bytes_per_s = 0;
};

struct StoreFigures {
  bool remote = false;
  std::string scheme;  // "s3", "https" or "http"
  // requests the read-ahead may keep in flight, on average over busy_s (it may double them once)
  unsigned max_in_flight = 0;
  double average_in_flight = 0;  // requests, over the time any was in flight
  unsigned peak_in_flight = 0;
  std::uint64_t requests = 0;  // ranged GETs (a run of neighbouring samples is one)
  std::uint64_t retries = 0, failed = 0;
  std::uint64_t bytes = 0;
  double first_byte_p50_ms = 0, first_byte_p99_ms = 0;  // per request, connection set-up included
  double bytes_per_s = 0;                               // over the time any request was in flight
  double bytes_per_s_per_connection = 0;                // one request's transfer rate
  double busy_s = 0;                                    // time with a request in flight
  std::vector<StoreBand> by_in_flight;  // the bands with time in them, fewest requests first
};

struct Report {
  RunSetting run;
  double wall_s = 0;
  std::uint64_t images = 0;  // delivered
  double images_per_s = 0;
  double mb_per_s = 0;
  RunFigures figures;
  double consumer_ms_per_batch = 0;  // the training step, as the loader saw it
  double in_flight_mean = 0, in_flight_max = 0, in_flight_capacity = 0;  // batches
  std::vector<StageFigures> stages;
  Capacities capacities;
  Verdict verdict;
  RunCosts costs;
  CacheFigures cache;
  StoreFigures store;
};

}  // namespace feedrate
