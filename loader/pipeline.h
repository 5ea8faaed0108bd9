// The machinery behind Loader (internal to loader/): the slot ring, the I/O thread, the decode
// arena and in-order delivery. See loader.h for the contract.
//
// Synchronisation: one mutex (SlotRing::mutex) guards slot states, the free list, the in-flight
// queue and the failure; one condition variable wakes the I/O thread, the consumer and stop()
// on every state change (a few per batch). Decode tasks touch only their own sample's fields;
// the last one of a batch flips the slot to kReady under the mutex.
#pragma once

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "decode/image_decoder.h"
#include "gpu/transfer.h"
#include "io/file.h"
#include "io/reader.h"
#include "loader/loader.h"
#include "loader/report.h"
#include "loader/slot.h"
#include "loader/trace.h"

namespace feedrate {

// Owns the slots and the copier; shared with every Batch so a Batch may outlive its Loader.
class SlotRing final : public detail::SlotOwner {
 public:
  void release(detail::Slot* slot) noexcept override;
  void* device_images(const detail::Slot* slot) const override;
  std::int32_t* device_labels(const detail::Slot* slot) const override;
  void wait(const detail::Slot* slot, void* cuda_stream) const override;

  std::unique_ptr<gpu::Transfer> transfer;
  std::exception_ptr release_failure;  // a copier error while a Batch was released

  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::unique_ptr<detail::Slot>> slots;
  std::vector<detail::Slot*> free;
};

class Pipeline {
 public:
  // Makes the reader; tests pass a test double (fault injection) instead of io::Reader::create.
  using ReaderFactory =
      std::function<std::unique_ptr<io::Reader>(const io::ReaderOptions&, std::string*)>;
  explicit Pipeline(const LoaderOptions& options, const ReaderFactory& make_reader = {});
  ~Pipeline();

  const LoaderOptions& options() const { return options_; }
  const Dataset& dataset() const { return dataset_; }
  std::size_t samples_per_epoch() const { return samples_per_epoch_; }
  std::size_t batches_per_epoch() const;

  void start_epoch(std::uint64_t epoch);
  // `while_waiting` (may be empty): see Loader::next.
  std::optional<Batch> next(const std::function<void()>& while_waiting = {});
  RunStats stats() const;
  Report report() const;
  const TraceRecorder& trace() const { return trace_; }

 private:
  struct Worker {
    explicit Worker(const decode::DecodeLimits& limits) : decoder(limits) {}
    decode::ImageDecoder decoder;
    std::vector<std::uint8_t> scratch;  // HWC pixels before conversion to float NCHW
  };

  using Clock = std::chrono::steady_clock;

  void stop();
  // Lowers options_.prefetch_batches to what memory_budget_mb allows; throws when not one fits.
  void apply_memory_budget(bool converts_on_device);
  std::optional<Batch> next_batch(const std::function<void()>& while_waiting);
  detail::Stall current_stall() const;
  void sample_in_flight();
  void io_main(std::uint64_t epoch);
  void read_batch(detail::Slot& slot);
  // Fill slot.reads: one read per sample, or per chunk of nearby tar members.
  void plan_file_reads(detail::Slot& slot);
  void plan_shard_reads(detail::Slot& slot);
  void decode_sample(detail::Slot& slot, std::size_t i);
  void decode_task(detail::Slot* slot, std::size_t i);
  // Applies the bad-input policy; returns false when every sample of the batch was skipped.
  bool finish_batch(detail::Slot& slot);

  LoaderOptions options_;
  Dataset dataset_;
  std::vector<io::File> shared_files_;  // tar shards, open for the Loader's lifetime
  std::size_t samples_per_epoch_ = 0;
  std::size_t sample_bytes_ = 0;  // staging bytes per sample, as the decoders write them
  bool decode_to_u8_ = true;      // decoders write uint8 HWC (else normalised float CHW)

  std::unique_ptr<io::Reader> reader_;  // used by the I/O thread only
  std::string io_fallback_reason_;
  std::unique_ptr<tbb::global_control> thread_limit_;
  std::unique_ptr<tbb::task_arena> arena_;
  tbb::enumerable_thread_specific<std::unique_ptr<Worker>> workers_;

  std::shared_ptr<SlotRing> ring_;
  TraceRecorder trace_;
  // Guarded by ring_->mutex:
  std::deque<detail::Slot*> in_flight_;  // batch order
  std::exception_ptr failure_;

  std::atomic<bool> cancel_{false};
  std::thread io_thread_;

  // Consumer-side epoch state.
  bool started_ = false;
  std::uint64_t epoch_ = 0;
  std::vector<std::uint32_t> order_;
  std::size_t next_number_ = 0;
  bool epoch_over_ = false;

  // Counters, written by several threads.
  std::atomic<std::uint64_t> batches_{0}, images_{0}, skipped_{0};
  std::atomic<std::uint64_t> read_ns_{0}, decode_ns_{0};
  std::atomic<std::uint64_t> read_blocked_ns_{0}, copy_blocked_ns_{0};
  std::atomic<std::uint64_t> assemble_ns_{0}, copy_ns_{0}, copy_bytes_{0}, consumer_ns_{0};
  std::atomic<std::uint64_t> stall_ns_[4] = {};                // by detail::Stall
  std::atomic<detail::Stall> io_waiting_{detail::Stall::kIo};  // what the I/O thread waits on
  std::atomic<Clock::rep> run_start_{0};  // steady_clock ticks of the first start_epoch(); 0 before
  Clock::time_point last_return_{};       // consumer thread: when next() last returned
  // Batches in flight, sampled at each next() under the ring mutex.
  double in_flight_sum_ = 0, in_flight_max_ = 0;
  std::uint64_t in_flight_samples_ = 0;
  std::atomic<std::uint64_t> bytes_read_{0}, read_operations_{0};
  mutable std::mutex io_stats_mutex_;
  IoStats io_stats_;
  mutable std::mutex skipped_mutex_;
  std::vector<SkippedSample> skipped_samples_;
};

}  // namespace feedrate
