// The machinery behind Loader (internal to loader/): it turns the options into stages, wires
// them and runs their threads. See loader.h for the contract.
//
// Stages, each in a room of its own:
//   read      BatchReader (batch_reader.h)     the I/O thread: sets a batch up, and its sample
//                                              source (local, blocks, remote) reads it
//   decode    SampleDecoder (sample_decoder.h) num_workers threads of a oneTBB task_arena
//   copy      Copier (copier.h)                the last decode task of a batch: bad-input policy
//                                              (BatchAssembler), then the submit to the device
//   deliver   Delivery (delivery.h)            the consumer: in order, waits charged by cause
// The slots they pass between them (SlotRing, slot_ring.h) bound the work in flight; the memory
// budget (memory_budget.h) sizes the ring; Telemetry (telemetry.h) counts for the report;
// EpochPlan (epoch_plan.h) says which samples an epoch deals and keeps the resumable state.
//
// The pipeline owns the epoch lifecycle: start_epoch() cancels what is in flight and starts an
// I/O thread for the new epoch's order; stop() cancels, joins it and waits for the decode tasks.
// Under on_bad="skip" the consumer fills the places of skipped samples from the following reads
// (batch_filler.h), lent by those that have no slot yet (stream_loans.h). pipeline.cc holds the
// construction, the lifecycle, the I/O thread and the decode tasks; pipeline_delivery.cc the
// consumer's side (next() and the epoch's end).
// Thread-safety: as Loader (one consumer thread; stats(), report() and trace() from any).
#pragma once

#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "feedrate/loader.h"
#include "feedrate/loader_state.h"
#include "feedrate/report.h"
#include "feedrate/trace.h"
#include "io/clock.h"
#include "loader/cache/pack_cache.h"
#include "loader/pipeline/batch_assembler.h"
#include "loader/pipeline/batch_reader.h"
#include "loader/pipeline/copier.h"
#include "loader/pipeline/delivery.h"
#include "loader/pipeline/epoch_plan.h"
#include "loader/pipeline/extra_reads.h"
#include "loader/pipeline/loan_reads.h"
#include "loader/pipeline/sample_decoder.h"
#include "loader/pipeline/slot_ring.h"
#include "loader/pipeline/stream_loans.h"
#include "loader/pipeline/telemetry.h"
#include "loader/pipeline/thread_limit.h"

namespace feedrate {

class Pipeline {
 public:
  // Makes the reader; tests pass a test double (fault injection) instead of io::Reader::create.
  using ReaderFactory = BatchReader::ReaderFactory;
  // `cache_hooks`: the pack cache's test seams. `clock` (which outlives the pipeline) times every
  // stage, the throttle and the cache's pacing; tests pass a fake one.
  explicit Pipeline(const LoaderOptions& options, const ReaderFactory& make_reader = {},
                    const PackCacheHooks& cache_hooks = {}, io::Clock& clock = io::Clock::real());
  ~Pipeline();

  const LoaderOptions& options() const { return options_; }
  const Dataset& dataset() const { return dataset_; }
  std::size_t samples_per_epoch() const { return plan_.samples_per_epoch(); }
  std::size_t batches_per_epoch() const;

  void start_epoch(std::uint64_t epoch);
  LoaderState state() const;
  void load_state(const LoaderState& state, bool allow_dataset_change);
  // `while_waiting` (may be empty): see Loader::next.
  std::optional<Batch> next(const std::function<void()>& while_waiting = {});
  // The telemetry's, with the samples the index left out first (they miss every epoch).
  RunStats stats() const;
  Report report() const;
  const TraceRecorder& trace() const { return trace_; }

 private:
  void stop();
  std::optional<Batch> next_batch(const std::function<void()>& while_waiting);
  void io_main(std::uint64_t epoch);
  // Reads the deal's read `read` (EpochPlan::read_samples) into a slot and starts its
  // decodes; false when cancelled.
  bool read_batch(std::uint64_t epoch, std::size_t read);
  // Whether the deal's read `read` is or will be in flight: an extra one (under on_bad="skip")
  // is asked of the I/O thread here; false once the stream is used up.
  bool read_coming(std::size_t read);
  // The k-th read after the consumer's batch, decoded, or a loan of its next samples (up to
  // `wanted`) when it cannot have a slot yet; no slot when none can be had.
  ReadSource following_read(std::size_t k, std::size_t wanted,
                            const std::function<void()>& while_waiting);
  // The consumer reached read `read`'s own slot: decoded, and after the samples it lent.
  void reach(std::size_t read, detail::Slot& slot);
  // A loan's samples, on the consumer's thread: decoded, then the bad-input policy.
  void decode_loan(detail::Slot& slot);
  // num_workers 0: decodes and assembles a read on the consumer's thread, once.
  void decode_on_consumer(detail::Slot& slot);
  // An extra read's skips of samples the epoch dealt before were counted then: drops them.
  void forget_repeated_skips(detail::Slot& slot) const;
  // Ends the epoch with `failure` (stops the pipeline) and throws it.
  [[noreturn]] void end_with(std::exception_ptr failure);
  // After the epoch's last batch: counts the skips of the reads still in flight, ends the I/O.
  void end_epoch(const std::function<void()>& while_waiting);
  void decode_task(detail::Slot* slot, std::size_t i);
  // Decodes sample i of the slot, then offers it to the pack cache.
  void decode_sample(detail::Slot& slot, std::size_t i);

  io::Clock& clock_;
  LoaderOptions options_;
  // on_bad="skip" with batches of one size: a batch takes the next samples of the epoch in
  // place of those it skipped (batch_filler.h).
  const bool fills_;
  Dataset dataset_;
  EpochPlan plan_;
  TraceRecorder trace_;

  std::unique_ptr<PackCache> cache_;     // null without cache_dir, or for a remote source
  std::unique_ptr<BatchReader> reader_;  // used by the I/O thread only
  std::unique_ptr<Telemetry> telemetry_;
  std::shared_ptr<SlotRing> ring_;
  std::unique_ptr<SampleDecoder> decoder_;
  std::unique_ptr<BatchAssembler> assembler_;
  std::unique_ptr<Copier> copier_;
  std::unique_ptr<Delivery> delivery_;
  std::unique_ptr<ThreadLimit> thread_limit_;
  std::unique_ptr<tbb::task_arena> arena_;

  std::atomic<bool> cancel_{false};
  std::thread io_thread_;

  ExtraReads extra_reads_;  // what the consumer asks the I/O thread to read (read_coming)
  LoanReads loan_reads_;    // and the samples it borrows (stream_loans.h)
  // fills_ with one-phase decodes: reads that cannot have a slot yet lend samples.
  std::unique_ptr<StreamLoans> loans_;

  // Consumer-side epoch state.
  bool started_ = false;
  std::size_t next_number_ = 0;  // batches of the deal taken by the consumer
  bool epoch_over_ = false;
  // The stream (fills_ only; else 0): the read the deal's reads begin with, and its good
  // samples taken before (a restored state's); the reads the consumer took from the ring; where
  // the next batch begins: a read of the deal, and its good samples used.
  std::size_t first_read_ = 0, first_read_taken_ = 0;
  std::size_t reads_taken_ = 0;
  std::size_t stream_read_ = 0, stream_taken_ = 0;
};

}  // namespace feedrate
