// The epoch plan (internal to loader/): which samples this rank's consumer gets in an epoch and
// where the epoch begins, with the resumable state that records it. A room of its own so that
// the pipeline keeps only the wiring and the threads.
//
// begin(epoch) deals the epoch (loader/pipeline/sampler.h) from its start, or from the point a
// restored state names when restore() was called for that epoch; state(taken) says where the
// consumer is after taking `taken` batches of the deal. restore() checks the state against this
// loader (dataset fingerprint, batch size, seed, shuffle, drop_last, pad_shards) and turns its
// rank's progress into the point where the next deal of that epoch begins (every old rank stepped
// in lock-step). See loader_state.h for the guarantee.
//
// Thread-safety: the consumer's thread; order() may be read by the I/O thread of the epoch
// begin() started (it is not changed until the next begin(), which follows that thread's end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "feedrate/loader_state.h"
#include "feedrate/options.h"
#include "loader/pipeline/sampler.h"

namespace feedrate {

class EpochPlan {
 public:
  EpochPlan(const Dataset& dataset, const LoaderOptions& options);

  // Samples of a whole epoch on this rank, before skips.
  std::size_t samples_per_epoch() const { return samples_per_epoch_; }

  // Deals `epoch`: from a restored point when restore() named this epoch, else from its start.
  void begin(std::uint64_t epoch);
  // This rank's samples of the deal, in delivery order; its batches; the first one's number.
  const std::vector<std::uint32_t>& order() const { return order_; }
  // shuffle=blocks: the deal's epoch's read units (epoch_read_units); empty otherwise.
  const std::vector<std::uint32_t>& read_units() const { return read_units_; }
  std::size_t batches() const { return batches_; }
  // The samples of order() its batches take (drop_last leaves a partial batch's out).
  std::size_t taken_samples() const;
  // The samples the next epoch's batches take from its start, as begin(epoch + 1) without a
  // restored point deals them: what a remote source reads ahead into.
  std::vector<std::uint32_t> next_epoch_order() const;
  std::size_t first_batch() const { return deal_.batch; }
  // Under on_bad="skip" (batch_filler.h): the read of batch_size samples of order() the deal
  // begins with (0 but where a restored state says the stream was further on), and the good
  // samples of it that earlier batches took.
  std::size_t first_read() const { return deal_.stream_reads; }
  std::size_t first_read_taken() const { return deal_.stream_taken; }
  // The deal's reads of batch_size samples (batch_filler.h): those of its batches, then the
  // extra ones that make up for skipped samples at the deal's end: the samples of order() its
  // batches leave (drop_last), then, with pad_shards, this rank's order of the epoch from its
  // start, once (without pad_shards an epoch with skips may end with fewer batches).
  std::size_t reads() const;
  // Read `read`'s samples into `indices`; returns the position from which they repeat samples
  // the epoch dealt before (their skips were counted then): indices.size() when none do.
  std::size_t read_samples(std::size_t read, std::vector<std::uint32_t>& indices) const;
  // The epoch a restored state waits to continue, if any.
  std::optional<std::uint64_t> restored_epoch() const;

  // Where the consumer is after taking `taken` batches of the deal (0 before any begin()),
  // with the next batch beginning `stream_reads` reads after the taken-th of the deal, of which
  // `stream_taken` good samples are used (batch_filler.h).
  LoaderState state(std::size_t taken, std::size_t stream_reads = 0,
                    std::size_t stream_taken = 0) const;
  // Throws feedrate::Error naming every difference, or a count beyond the epoch.
  void restore(const LoaderState& state, bool allow_dataset_change);

 private:
  // Where a deal begins: samples of the epoch's sequence consumed before, and the number of
  // its first batch.
  struct DealStart {
    std::uint64_t epoch = 0;
    std::size_t sample = 0;
    std::size_t batch = 0;
    int blocks_world_size = 0;  // shuffle=blocks: the epoch's sequence's; 0: this world size
    std::size_t stream_reads = 0, stream_taken = 0;  // first_read(), first_read_taken()
  };

  // For a deal whose sequence deals blocks to `blocks_world_size` ranks (0: world_size).
  SamplerOptions sampler_options(int blocks_world_size = 0) const;
  const std::string& index_hash() const;  // the dataset's, computed once

  const Dataset& dataset_;
  const LoaderOptions& options_;
  const std::vector<std::uint32_t> block_starts_;
  const std::size_t samples_per_epoch_;
  mutable std::once_flag index_hash_once_;
  mutable std::string index_hash_;

  bool begun_ = false;
  DealStart deal_;                       // of the current epoch
  std::optional<DealStart> resume_;      // set by restore(), used by the next begin()
  std::optional<LoaderState> restored_;  // what restore() was given, until then
  std::vector<std::uint32_t> order_;
  // This rank's order of the epoch from its start, where the deal began later (restored);
  // else empty: order_ is that.
  std::vector<std::uint32_t> restored_wrap_;
  std::span<const std::uint32_t> wrap_;  // extra samples after the deal's own: the epoch's start
  // The samples of order() the batches leave, which the extra reads take first.
  std::size_t left_over() const { return order_.size() - taken_samples(); }
  std::vector<std::uint32_t> read_units_;
  std::size_t batches_ = 0;
};

}  // namespace feedrate
