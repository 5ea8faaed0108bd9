#include "loader/pipeline/block_reads.h"

#include <cstring>
#include <utility>

namespace feedrate {

using detail::Slot;

BlockReads::BlockReads(const Dataset& dataset, std::unique_ptr<io::Reader> reader,
                       std::string fallback, std::uint64_t held_bytes, PackCache* cache)
    : dataset_(dataset),
      reader_(std::move(reader)),
      fallback_reason_(std::move(fallback)),
      shared_files_(open_shards(dataset_, *reader_)),
      held_bytes_(held_bytes),
      blocks_(dataset_, held_bytes),
      cache_(cache) {}

void BlockReads::start_epoch(EpochReads epoch) {
  blocks_.start_epoch(epoch.order, epoch.units);
}

bool BlockReads::read_ahead(std::size_t blocks) {
  block_reads_.clear();
  blocks_.plan_ahead(shared_files_, block_reads_, blocks);
  if (block_reads_.empty()) return false;
  reader_->read(block_reads_);
  blocks_.finish_batch(block_reads_);
  return true;
}

void BlockReads::read(Slot& slot) {
  block_reads_.clear();
  const std::span<const std::uint32_t> indices(slot.indices.data(), slot.count);
  blocks_.plan(indices, shared_files_, block_reads_);
  reader_->read(block_reads_);

  std::uint64_t total = 0;
  for (std::size_t i = 0; i < slot.count; ++i) total += slot.encoded_size[i];
  reserve_encoded(slot, total);
  std::size_t at = 0;
  for (std::size_t i = 0; i < slot.count; ++i) {
    const std::uint32_t index = slot.indices[i];
    const std::size_t size = slot.encoded_size[i];
    const BlockStore::Found found = blocks_.find(index, block_reads_);
    if (found.failed != nullptr) {
      slot.errors[i] = read_failure(dataset_, index, *found.failed);
    } else if (size > 0) {
      std::memcpy(slot.encoded.data() + at, found.bytes, size);
      slot.encoded_offset[i] = at;
      at += size;
    }
    blocks_.used(index);
  }
  blocks_.finish_batch(block_reads_);
  if (cache_ != nullptr) cache_->count(0, slot.count);
}

void BlockReads::read_outside(Slot& slot) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < slot.count; ++i) total += slot.encoded_size[i];
  reserve_encoded(slot, total);
  slot.reads.clear();
  std::size_t at = 0;
  for (std::size_t i = 0; i < slot.count; ++i) {
    const SampleRef& ref = dataset_.sample(slot.indices[i]);
    slot.encoded_offset[i] = at;
    io::ReadRequest request;
    request.fd = shared_files_[ref.file].fd();
    request.offset = ref.offset;
    request.dest = std::span<std::byte>(slot.encoded.data() + at, ref.size);
    slot.reads.push_back(request);
    at += ref.size;
  }
  reader_->read(slot.reads);
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (slot.reads[i].error)
      slot.errors[i] = read_failure(dataset_, slot.indices[i], slot.reads[i]);
  }
  slot.reads.clear();
  if (cache_ != nullptr) cache_->count(0, slot.count);
}

}  // namespace feedrate
