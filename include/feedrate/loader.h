// The public entry point: a Loader iterates epochs of an image dataset (on a local disk, or a
// URL: s3:// or https://; LoaderOptions::source) and delivers augmented batches in sampler order.
//
//   feedrate::LoaderOptions options;
//   options.source = "/data/imagenet/train";
//   options.num_workers = 8;
//   feedrate::Loader loader(options);
//   for (std::uint64_t epoch = 0; epoch < 90; ++epoch) {
//     loader.start_epoch(epoch);
//     while (std::optional<feedrate::Batch> batch = loader.next()) train(*batch);
//   }
//
// Pipeline: one I/O thread gathers each upcoming batch's encoded bytes: from a local disk with
// io_uring (or pread where io_uring is unavailable); from a remote source, from a read-ahead
// thread that keeps ranged GETs in flight (docs/remote.md); from the local cache under
// cache_dir for the samples it holds. num_workers decode threads (a oneTBB task_arena) decode
// and augment every sample straight into the batch's slot, and next() hands out slots in
// order. At most prefetch_batches slots exist, and a remote read-ahead holds a bounded window
// of bytes, both within memory_budget_mb; nothing else grows.
//
// Errors: the constructor throws feedrate::Error for bad options or a dataset that cannot be
// indexed; next() throws feedrate::Error for a sample that fails under the `error` policy (the
// epoch ends), or when the consumer holds every slot. Thread-safety: one consumer thread
// calls start_epoch() / next(); stats() may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "feedrate/batch.h"
#include "feedrate/dataset.h"
#include "feedrate/export.h"
#include "feedrate/loader_state.h"
#include "feedrate/options.h"
#include "feedrate/report.h"
#include "feedrate/trace.h"

namespace feedrate {

// The reader as it ran: backend, throttle, latency and concurrency.
struct IoStats {
  std::string backend;  // e.g. "io_uring+fixed-buffers+O_DIRECT", "pread"
  std::string throttle = "unlimited";
  double latency_p50_us = 0, latency_p99_us = 0;  // per read operation
  double average_in_flight = 0;
  unsigned peak_in_flight = 0;
  std::uint64_t direct_io_fallbacks = 0;  // files read buffered because O_DIRECT was refused
  std::string notes;                      // why, and fixed-buffer notices
};

// What a run delivered and how it read: counts, backends, skipped samples. Time figures (busy,
// waits, rates) are in Report; both come from the same counters (loader/pipeline/telemetry.h).
struct RunStats {
  std::uint64_t batches = 0;
  std::uint64_t images = 0;      // delivered
  std::uint64_t skipped = 0;     // under the skip policy
  std::uint64_t bytes_read = 0;  // encoded bytes
  std::uint64_t read_operations = 0;
  std::string io_backend;                      // "io_uring" or "pread"
  std::string io_fallback_reason;              // why pread, when it is
  std::string device;                          // where batches live: "host"
  std::vector<SkippedSample> skipped_samples;  // the first 1000
  IoStats io;
};

class Pipeline;

class FEEDRATE_API Loader {
 public:
  explicit Loader(const LoaderOptions& options);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  const LoaderOptions& options() const;  // after resolve(): rank and world size filled in
  const Dataset& dataset() const;
  std::size_t samples_per_epoch() const;  // on this rank, before skips
  std::size_t batches_per_epoch() const;

  // Starts (or restarts) an epoch; an unfinished one is cancelled. next() without a prior
  // start_epoch() starts epoch 0.
  void start_epoch(std::uint64_t epoch);
  // The next batch of the current epoch, or nullopt once it is exhausted.
  std::optional<Batch> next();
  // The same, calling `while_waiting` on this thread every few milliseconds while the batch is
  // not ready (never with the loader's locks held). If it throws, next() rethrows with the
  // loader unchanged: a later next() continues where this one stopped. Language bindings use
  // it to check for interrupts (Ctrl-C) while they wait without holding their interpreter lock.
  std::optional<Batch> next(const std::function<void()>& while_waiting);

  // Where the consumer is in the epoch, to save in a checkpoint (loader_state.h). Batches
  // still prefetching do not count as received. Call it from the consumer's thread.
  LoaderState state() const;
  // Makes the next epoch iteration (start_epoch(state.epoch), or next() without one) start
  // where `state` was taken: at the same world size the rest of the epoch is exactly what the
  // uninterrupted run delivers; at another, the samples no old rank consumed are dealt among
  // the ranks of this run. Other epochs are unaffected; start_epoch() of another epoch drops
  // the restored point. Throws feedrate::Error naming what differs when the dataset (unless
  // allow_dataset_change), batch_size, seed, shuffle (with blocks: tar_chunk_bytes and the
  // window's blocks), drop_last or pad_shards do not match,
  // or when the state lies beyond its epoch. Cancels the epoch in flight.
  void load_state(const LoaderState& state, bool allow_dataset_change = false);

  RunStats stats() const;
  // The run so far (since the first epoch started), report.h's parts: its figures per stage,
  // the consumer's stalls by cause, the capacities, the verdict with its advice, the costs, the
  // cache's figures (cache_dir) and a remote source's store figures. Not free: besides the
  // counters and the clock it reads this process's peak RSS from /proc, the cache's and the
  // read-ahead's figures, and runs the capacity model and the whole verdict on them (the CPUs
  // and memory limit it judges against are read once, at start). Call it at any time, from any
  // thread, but not once per batch in a hot loop.
  Report report() const;
  // The timeline recorded so far (empty unless LoaderOptions::trace).
  const TraceRecorder& trace() const;

 private:
  std::unique_ptr<Pipeline> pipeline_;
};

}  // namespace feedrate
