#include "loader/pipeline/epoch_plan.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "feedrate/error.h"
#include "loader/pipeline/block_store.h"

namespace feedrate {

EpochPlan::EpochPlan(const Dataset& dataset, const LoaderOptions& options)
    : dataset_(dataset),
      options_(options),
      block_starts_(blocks_of(dataset, options)),
      samples_per_epoch_(samples_per_rank(dataset.size(), sampler_options())) {}

SamplerOptions EpochPlan::sampler_options(int blocks_world_size) const {
  SamplerOptions sampler;
  sampler.shuffle = options_.shuffle;
  sampler.seed = options_.seed;
  sampler.rank = options_.rank;
  sampler.world_size = options_.world_size;
  sampler.pad_shards = options_.pad_shards;
  sampler.block_starts = block_starts_;
  sampler.window_blocks = window_blocks_of(options_);
  sampler.blocks_world_size = blocks_world_size;
  return sampler;
}

const std::string& EpochPlan::index_hash() const {
  std::call_once(index_hash_once_, [&] { index_hash_ = dataset_.index_hash(); });
  return index_hash_;
}

void EpochPlan::begin(std::uint64_t epoch) {
  deal_ = resume_ && resume_->epoch == epoch ? *resume_ : DealStart{epoch, 0, 0};
  resume_.reset();
  restored_.reset();
  begun_ = true;
  const SamplerOptions sampler = sampler_options(deal_.blocks_world_size);
  order_ = epoch_order(dataset_.size(), sampler, epoch, deal_.sample);
  if (!block_starts_.empty()) read_units_ = epoch_read_units(dataset_.size(), sampler, epoch);
  batches_ = batch_count(order_.size(), options_.batch_size, options_.drop_last);
  // pad_shards: the epoch's start pads what skips leave short, as it pads the ranks' deals.
  restored_wrap_.clear();
  if (options_.pad_shards && deal_.sample > 0) {
    restored_wrap_ = epoch_order(dataset_.size(), sampler, epoch, 0);
  }
  wrap_ = !options_.pad_shards ? std::span<const std::uint32_t>()
          : deal_.sample > 0   ? std::span<const std::uint32_t>(restored_wrap_)
                               : std::span<const std::uint32_t>(order_);
}

std::size_t EpochPlan::reads() const {
  const std::size_t batch = options_.batch_size;
  return batches_ + (left_over() + wrap_.size() + batch - 1) / batch;
}

std::size_t EpochPlan::read_samples(std::size_t read, std::vector<std::uint32_t>& indices) const {
  const std::size_t batch = options_.batch_size;
  if (read < batches_) {
    const std::size_t first = read * batch;
    const auto begin = order_.begin() + static_cast<std::ptrdiff_t>(first);
    indices.assign(begin,
                   begin + static_cast<std::ptrdiff_t>(std::min(batch, order_.size() - first)));
    return indices.size();
  }
  const std::size_t first = (read - batches_) * batch;
  const std::size_t count = std::min(batch, left_over() + wrap_.size() - first);
  indices.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t k = first + i;
    indices[i] = k < left_over() ? order_[taken_samples() + k] : wrap_[k - left_over()];
  }
  return std::clamp(left_over(), first, first + count) - first;
}

std::size_t EpochPlan::taken_samples() const {
  return std::min(order_.size(), batches_ * options_.batch_size);
}

std::vector<std::uint32_t> EpochPlan::next_epoch_order() const {
  std::vector<std::uint32_t> order =
      epoch_order(dataset_.size(), sampler_options(), deal_.epoch + 1, 0);
  const std::size_t batches = batch_count(order.size(), options_.batch_size, options_.drop_last);
  order.resize(std::min(order.size(), batches * options_.batch_size));
  return order;
}

std::optional<std::uint64_t> EpochPlan::restored_epoch() const {
  if (!resume_) return std::nullopt;
  return resume_->epoch;
}

LoaderState EpochPlan::state(std::size_t taken, std::size_t stream_reads,
                             std::size_t stream_taken) const {
  if (restored_) return *restored_;  // nothing has moved since
  LoaderState s;
  s.samples = dataset_.size();
  s.index_hash = index_hash();
  s.seed = options_.seed;
  s.shuffle = shuffle_name(options_.shuffle);
  s.window_blocks = window_blocks_of(options_);
  if (options_.shuffle == ShuffleMode::kBlocks) {
    s.block_bytes = options_.tar_chunk_bytes;
    s.blocks_world_size =
        begun_ && deal_.blocks_world_size > 0 ? deal_.blocks_world_size : options_.world_size;
  }
  s.rank = options_.rank;
  s.world_size = options_.world_size;
  s.batch_size = options_.batch_size;
  s.drop_last = options_.drop_last;
  s.pad_shards = options_.pad_shards;
  const DealStart deal = begun_ ? deal_ : DealStart{};
  s.epoch = deal.epoch;
  s.dealt_from_sample = deal.sample;
  s.dealt_from_batch = deal.batch;
  s.batches_received = deal.batch + (begun_ ? taken : 0);
  s.stream_reads = begun_ ? stream_reads : 0;
  s.stream_taken = begun_ ? stream_taken : 0;
  return s;
}

void EpochPlan::restore(const LoaderState& state, bool allow_dataset_change) {
  std::string differs;
  const auto text = [](const auto& value) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, bool>) {
      return std::string(value ? "true" : "false");
    } else if constexpr (std::is_same_v<T, std::string>) {
      return value;
    } else {
      return std::to_string(value);
    }
  };
  const auto compare = [&](const char* name, const auto& saved, const auto& mine) {
    if (saved == mine) return;
    differs += std::string(differs.empty() ? "" : ", ") + name + " " + text(saved) +
               " in the state, " + text(mine) + " here";
  };
  if (!allow_dataset_change) {
    compare("dataset samples", state.samples, std::uint64_t{dataset_.size()});
    compare("dataset index hash", state.index_hash, index_hash());
  }
  // Only a changed dataset can be accepted on request: the hint goes with that difference alone.
  if (!differs.empty()) differs += " (a changed dataset is accepted with allow_dataset_change)";
  compare("batch_size", state.batch_size, std::uint64_t{options_.batch_size});
  compare("seed", state.seed, options_.seed);
  const bool blocks = options_.shuffle == ShuffleMode::kBlocks;
  compare("shuffle", state.shuffle, std::string(shuffle_name(options_.shuffle)));
  compare("shuffle block bytes (tar_chunk_bytes)", state.block_bytes,
          blocks ? options_.tar_chunk_bytes : std::uint64_t{0});
  compare("shuffle window blocks (shuffle_window_mb)", state.window_blocks,
          std::uint64_t{window_blocks_of(options_)});
  compare("drop_last", state.drop_last, options_.drop_last);
  compare("pad_shards", state.pad_shards, options_.pad_shards);
  if (!differs.empty()) {
    throw Error("cannot restore the loader state: " + differs);
  }
  // The saved rank's deal, and how far every rank of it got (they step in lock-step).
  const std::size_t samples = dataset_.size();
  SamplerOptions saved = sampler_options(state.blocks_world_size);
  saved.rank = state.rank;
  saved.world_size = state.world_size;
  const std::size_t per_rank = samples_per_rank(samples, saved, state.dealt_from_sample);
  const std::size_t batches = batch_count(per_rank, options_.batch_size, options_.drop_last);
  const std::uint64_t received = state.batches_received - state.dealt_from_batch;
  if (received > batches) {
    throw Error("cannot restore the loader state: it says " +
                std::to_string(state.batches_received) + " batches were received in epoch " +
                std::to_string(state.epoch) + ", which has " +
                std::to_string(state.dealt_from_batch + batches) + " at world size " +
                std::to_string(state.world_size));
  }
  begun_ = false;
  resume_ = DealStart{state.epoch,
                      consumed_through(samples, saved, state.dealt_from_sample,
                                       static_cast<std::size_t>(received) * options_.batch_size),
                      static_cast<std::size_t>(state.batches_received), state.blocks_world_size};
  // The stream's reads begin where the saved run's did only in the same deal (see
  // LoaderState::stream_reads).
  if (state.world_size == options_.world_size && state.rank == options_.rank) {
    resume_->stream_reads = static_cast<std::size_t>(state.stream_reads);
    resume_->stream_taken = static_cast<std::size_t>(state.stream_taken);
  }
  restored_ = state;
}

}  // namespace feedrate
