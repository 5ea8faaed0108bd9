// The memory-budget policy (internal to loader/): how many batch slots fit in
// LoaderOptions::memory_budget_mb, counting every buffer the loader holds for the work in
// flight. A pure function of its inputs, so the policy is testable without a loader.
//
// Counted: per slot, the staging images and the encoded bytes (single files, tar members and
// multi-member tar chunks share one buffer that grows by a quarter over its need; a tar member
// also brings its 512-byte header and padding); once, the reader's O_DIRECT bounce buffers,
// the decode workers' uint8 scratch (HWC pixels before a float layout's conversion) and, for
// shuffle=blocks on tar shards, the whole blocks the reader holds (a window, plus the blocks of the
// next window a batch reaches into). Not counted: what the decoders and libraries hold inside
// (libjpeg state, a few rows), allocator slack and thread stacks.
//
// Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <cstdint>

namespace feedrate {

struct MemoryNeeds {
  std::size_t batch_size = 1;
  double staging_bytes_per_sample = 0;  // what the decoders write per sample
  double encoded_bytes_per_sample = 0;  // the dataset's mean
  bool tar_members = false;             // encoded bytes are read from tar shards
  double shared_bytes = 0;              // bounce buffers, worker scratch, blocks: held once
};

// Bytes of one slot under `needs`.
double slot_bytes(const MemoryNeeds& needs);

// The slots to use: min(wanted, what fits in the budget). budget_mb 0 means a quarter of
// `memory_limit_bytes` (the container's limit, else the RAM); when that is unknown too, every
// wanted slot. Throws feedrate::Error when not one slot fits, saying what one needs.
std::size_t slots_within_budget(const MemoryNeeds& needs, std::size_t wanted, std::size_t budget_mb,
                                std::uint64_t memory_limit_bytes);

}  // namespace feedrate
