// Reads whole storage blocks of tar shards, for shuffle=blocks (internal to loader/; a
// SampleSource, sample_source.h): a BlockStore (block_store.h) plans which blocks a batch needs
// and which to read ahead, holds them, and each sample's bytes are copied from its block into
// the slot. A block that failed part-way still delivers every member that ends before the
// failure; the others get "SHARD:MEMBER: read failed at byte N: REASON".
//
// The pack cache is not read from here (a block holds its members in storage order); its
// misses are still counted, so that its report covers every batch.
//
// Thread-safety: as SampleSource.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "loader/cache/pack_cache.h"
#include "loader/pipeline/block_store.h"
#include "loader/pipeline/sample_source.h"

namespace feedrate {

class BlockReads final : public SampleSource {
 public:
  // `reader` reads the shards; `held_bytes` caps the blocks held by look-ahead
  // (held_blocks_of() x tar_chunk_bytes). `cache` (may be null) outlives the source.
  BlockReads(const Dataset& dataset, std::unique_ptr<io::Reader> reader, std::string fallback,
             std::uint64_t held_bytes, PackCache* cache);

  void start_epoch(EpochReads epoch) override;
  void read(detail::Slot& slot) override;
  // Each sample alone, from its shard (the blocks held stay for the epoch's reads).
  void read_outside(detail::Slot& slot) override;
  // Reads the next `blocks` look-ahead blocks (BlockStore::plan_ahead). Read failures wait for
  // a batch that needs the block.
  bool read_ahead(std::size_t blocks) override;
  // The blocks look-ahead may hold.
  std::uint64_t held_bytes_limit() const override { return held_bytes_; }
  const io::ReadStats& stats() const override { return reader_->stats(); }
  std::string backend_name() const override { return io::backend_name(reader_->backend()); }
  const std::string& fallback_reason() const override { return fallback_reason_; }

 private:
  const Dataset& dataset_;
  std::unique_ptr<io::Reader> reader_;
  const std::string fallback_reason_;
  std::vector<io::File> shared_files_;  // the shards, open for the source's lifetime
  const std::uint64_t held_bytes_;
  BlockStore blocks_;
  std::vector<io::ReadRequest> block_reads_;  // of one batch
  PackCache* cache_;                          // null: no cache
};

}  // namespace feedrate
