// A loader's resumable state: where the consumer is in an epoch, and what must be the same for
// the rest of the epoch to be what it would have been. Small and plain: order and pixels are
// pure functions of (seed, epoch, sample), so restoring replays nothing.
//
// Loader::state() takes it at any time; Loader::load_state() makes the next epoch iteration
// start at that point. Restored at the same world size, the rest of the epoch is the same
// batches, in the same order, with the same bytes as the uninterrupted run. Restored at another
// world size (elastic), the samples no old rank consumed are dealt among the new ranks (see
// epoch_order's dealt_from), so that over the epoch every sample is delivered exactly once, plus
// the padding DistributedSampler semantics add to the last round of each deal.
//
// Serialised as JSON (to_json / from_json) with a checksum: a truncated, damaged or edited state
// is an error naming what is wrong, never a silent misread. Thread-safety: a plain value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "feedrate/export.h"

namespace feedrate {

struct FEEDRATE_API LoaderState {
  // 2: shuffle is a mode ("full", "blocks", "none"), with the blocks' size and window.
  // 3: shuffle "blocks" deals its blocks to the ranks (blocks_world_size) and its first window
  // goes part by part (sampler.h). Version 2 is read for "full" and "none", whose order did not
  // change.
  // 4: the stream position (stream_reads, stream_taken): under on_bad="skip" a batch takes the
  // next samples of the epoch in place of the skipped ones. Versions 2 and 3 read as position 0.
  static constexpr int kFormatVersion = 4;
  int version = kFormatVersion;

  // The dataset fingerprint: its sample count and a hash of its index (file names relative to
  // the dataset, tar members, byte ranges, labels, class names), 16 hex digits.
  std::uint64_t samples = 0;
  std::string index_hash;

  std::uint64_t seed = 0;
  std::uint64_t epoch = 0;
  std::string shuffle = "full";  // the mode's name (options.h shuffle_name)
  // shuffle "blocks": the storage blocks' bytes (tar_chunk_bytes) and the blocks of a window,
  // which the order depends on; both 0 for the other modes.
  std::uint64_t block_bytes = 0;
  std::uint64_t window_blocks = 0;
  // shuffle "blocks": the world size the epoch's blocks are dealt to (that of the run that began
  // the epoch; a resumed run keeps it for the rest of the epoch); 0 for the other modes.
  int blocks_world_size = 0;
  int rank = 0;  // when saved
  int world_size = 1;
  std::uint64_t batch_size = 0;
  bool drop_last = false;
  bool pad_shards = true;

  // Batches of the epoch handed to this rank's consumer (or skipped whole under on_bad=skip);
  // batches still prefetching do not count. Under DDP every rank has the same count.
  std::uint64_t batches_received = 0;
  // Where this run's deal of the epoch began: samples of the epoch's sequence consumed
  // before it (by a run at another world size) and the batches received by then. Both 0 when
  // the epoch was dealt from its start.
  std::uint64_t dealt_from_sample = 0;
  std::uint64_t dealt_from_batch = 0;
  // Under on_bad="skip", where the next batch begins in the epoch's stream of reads (each
  // batch_size samples of this rank's deal; batches take the next good samples in place of
  // skipped ones): `stream_reads` reads after the batches_received-th, of which `stream_taken`
  // good samples went to earlier batches. Both 0 while nothing was skipped. A restore at
  // another world size starts at the batches received (the few samples that made up for
  // skipped ones may then repeat).
  std::uint64_t stream_reads = 0;
  std::uint64_t stream_taken = 0;

  std::string to_json() const;
  // Throws feedrate::Error naming the problem: not JSON, another format, an unsupported
  // version, a missing or mistyped field, a checksum mismatch (edited or damaged).
  static LoaderState from_json(std::string_view text);

  friend bool operator==(const LoaderState&, const LoaderState&) = default;
};

}  // namespace feedrate
