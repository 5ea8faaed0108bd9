#include "loader/pipeline/block_store.h"

#include <algorithm>
#include <utility>

#include "loader/pipeline/sampler.h"

namespace feedrate {

std::vector<std::uint32_t> blocks_of(const Dataset& dataset, const LoaderOptions& options) {
  if (options.shuffle != ShuffleMode::kBlocks) return {};
  std::vector<std::uint64_t> sizes(dataset.size()), offsets;
  std::vector<std::uint32_t> shard_of;
  for (std::size_t i = 0; i < dataset.size(); ++i) sizes[i] = dataset.sample(i).size;
  if (dataset.files_are_shared()) {
    offsets.resize(dataset.size());
    shard_of.resize(dataset.size());
    for (std::size_t i = 0; i < dataset.size(); ++i) {
      offsets[i] = dataset.sample(i).offset;
      shard_of[i] = dataset.sample(i).file;
    }
  }
  return storage_blocks(sizes, offsets, shard_of, options.tar_chunk_bytes);
}

std::size_t window_blocks_of(const LoaderOptions& options) {
  if (options.shuffle != ShuffleMode::kBlocks) return 0;
  return window_blocks(static_cast<std::uint64_t>(options.shuffle_window_mb) * 1'000'000,
                       options.tar_chunk_bytes);
}

std::size_t held_blocks_of(const LoaderOptions& options, const Dataset& dataset) {
  // A remote dataset's blocks come through its read-ahead, which reads them as sequential GETs.
  if (options.shuffle != ShuffleMode::kBlocks || !dataset.files_are_shared() ||
      dataset.is_remote()) {
    return 0;
  }
  const std::size_t window = window_blocks_of(options);
  return window + std::min(window, options.batch_size);
}

BlockStore::BlockStore(const Dataset& dataset, std::uint64_t max_held_bytes)
    : dataset_(dataset), max_held_bytes_(max_held_bytes) {}

void BlockStore::start_epoch(const std::vector<std::uint32_t>& order,
                             const std::vector<std::uint32_t>& units) {
  for (std::size_t b = 0; b < held_.size(); ++b) release(b);
  starts_ = units;
  held_.resize(starts_.size());
  uses_left_.assign(starts_.size(), 0);
  for (const std::uint32_t index : order) ++uses_left_[block_of(index)];
  order_ = order;
  consumed_ = 0;
  ahead_ = 0;
}

std::size_t BlockStore::block_of(std::uint32_t index) const {
  return static_cast<std::size_t>(std::upper_bound(starts_.begin(), starts_.end(), index) -
                                  starts_.begin() - 1);
}

void BlockStore::add_read(std::size_t block, std::span<const io::File> shards,
                          std::vector<io::ReadRequest>& reads) {
  if (!held_[block].empty()) return;  // held, or read by this batch already
  const std::uint32_t first = starts_[block];
  const std::uint32_t end_index =
      block + 1 < starts_.size() ? starts_[block + 1] : static_cast<std::uint32_t>(dataset_.size());
  const SampleRef& begin = dataset_.sample(first);
  std::uint64_t end = begin.offset;
  for (std::uint32_t k = first; k < end_index; ++k) {
    end = std::max(end, dataset_.sample(k).offset + dataset_.sample(k).size);
  }
  if (end == begin.offset) return;  // empty members only: nothing to read
  std::vector<std::byte> buffer;
  if (!spare_.empty()) {
    buffer = std::move(spare_.back());
    spare_.pop_back();
  }
  buffer.resize(static_cast<std::size_t>(end - begin.offset));
  held_[block] = std::move(buffer);
  held_bytes_ += held_[block].size();
  io::ReadRequest request;
  request.fd = shards[begin.file].fd();
  request.offset = begin.offset;
  request.dest = held_[block];
  reads.push_back(request);
  read_block_.push_back(block);
}

void BlockStore::plan(std::span<const std::uint32_t> indices, std::span<const io::File> shards,
                      std::vector<io::ReadRequest>& reads) {
  read_block_.clear();
  for (const std::uint32_t index : indices) add_read(block_of(index), shards, reads);
  consumed_ += indices.size();
}

void BlockStore::plan_ahead(std::span<const io::File> shards, std::vector<io::ReadRequest>& reads,
                            std::size_t blocks) {
  read_block_.clear();
  ahead_ = std::max(ahead_, consumed_);
  while (blocks > 0 && ahead_ < order_.size() && held_bytes_ < max_held_bytes_) {
    const std::size_t before = reads.size();
    add_read(block_of(order_[ahead_++]), shards, reads);
    blocks -= reads.size() > before ? 1 : 0;
  }
}

BlockStore::Found BlockStore::find(std::uint32_t index,
                                   std::span<const io::ReadRequest> reads) const {
  const std::size_t block = block_of(index);
  const SampleRef& ref = dataset_.sample(index);
  const std::uint64_t start = ref.offset - dataset_.sample(starts_[block]).offset;
  const auto read = std::find(read_block_.begin(), read_block_.end(), block);
  if (read != read_block_.end()) {
    const io::ReadRequest& request = reads[static_cast<std::size_t>(read - read_block_.begin())];
    if (request.error && start + ref.size > request.bytes_read) return {nullptr, &request};
  }
  return {held_[block].data() + start, nullptr};
}

void BlockStore::used(std::uint32_t index) {
  const std::size_t block = block_of(index);
  if (uses_left_[block] > 0 && --uses_left_[block] == 0) release(block);
}

void BlockStore::finish_batch(std::span<const io::ReadRequest> reads) {
  for (std::size_t r = 0; r < read_block_.size(); ++r) {
    if (reads[r].error) release(read_block_[r]);
  }
}

void BlockStore::release(std::size_t block) {
  if (held_[block].empty()) return;
  held_bytes_ -= held_[block].size();
  spare_.push_back(std::exchange(held_[block], {}));
}

}  // namespace feedrate
