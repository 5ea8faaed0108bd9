// The read stage's one interface (internal to loader/): where a batch's samples come from. The
// batch reader (batch_reader.h) sets a batch's slot up and asks its source to fill it; three
// owners implement it, each with its own state, and nothing above this interface knows which
// one runs:
//   LocalReads   (local_reads.h)   files, tar members and chunks of a local disk (io_uring or
//                                  pread), and the pack cache's entries
//   BlockReads   (block_reads.h)   whole storage blocks of tar shards, for shuffle=blocks
//   RemoteReads  (remote_reads.h)  s3:// and https:// objects through the read-ahead, and the
//                                  local-disk cache of them
//
// The contract of read(): the slot arrives set up (see BatchReader::read: labels, an empty
// error per sample, each sample's size in the index as encoded_size, from_cache 0, no reads);
// the source places every sample's bytes in slot.encoded at slot.encoded_offset[i] (their
// count in encoded_size[i], which a cache entry may change), or sets slot.errors[i] naming the
// file (and tar member), the offset and the reason. Per-sample failures are data; a failure of
// the source itself (libcurl cannot start, say) throws feedrate::Error.
//
// Thread-safety: one thread (the I/O thread) calls start_epoch(), read(), read_outside() and
// read_ahead();
// stats() is that thread's too; backend_name(), fallback_reason() are fixed after construction;
// attach() may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "feedrate/report.h"
#include "io/file.h"
#include "io/reader.h"
#include "loader/pipeline/slot.h"

namespace feedrate {

// What an epoch will read: this rank's order, the epoch's read units (block reads), how many of
// the order its batches take, and the samples the next epoch is expected to take, computed only
// for a source that asks (a remote source reads ahead into them).
struct EpochReads {
  const std::vector<std::uint32_t>& order;
  const std::vector<std::uint32_t>& units;
  std::size_t taken = 0;
  std::function<std::vector<std::uint32_t>()> next;
};

class SampleSource {
 public:
  virtual ~SampleSource() = default;

  // Before the epoch's first read().
  virtual void start_epoch(EpochReads epoch) = 0;
  // Fills the set-up slot's samples (the contract above). Returns when every read has finished
  // or failed.
  virtual void read(detail::Slot& slot) = 0;
  // Fills a slot whose samples lie outside the epoch's reads (an epoch's end made up for
  // skipped samples: batch_filler.h), under read()'s contract, without disturbing the epoch's
  // reads. read() by default: a source whose reads follow no plan.
  virtual void read_outside(detail::Slot& slot);
  // Reads ahead of the batches while every slot is taken (block reads: the next `blocks`
  // look-ahead blocks); returns whether it read anything. Nothing by default.
  virtual bool read_ahead(std::size_t blocks);

  // The reads as they ran.
  virtual const io::ReadStats& stats() const = 0;
  // The backend the run reports ("io_uring", "pread", "remote").
  virtual std::string backend_name() const = 0;
  // Why io_uring is not in use; empty when it is (or when it does not apply).
  virtual const std::string& fallback_reason() const = 0;
  // The bytes the source holds besides the slots (blocks held, a read-ahead's window), which
  // the memory budget counts. 0 by default.
  virtual std::uint64_t held_bytes_limit() const;
  // Adds the source's own figures to a report (a store's, its cache's) before the diagnosis.
  // Nothing by default.
  virtual void attach(Report& report) const;
};

// "WHERE: read failed at byte N: REASON" for sample `index`, which `request` held.
std::string read_failure(const Dataset& dataset, std::uint32_t index,
                         const io::ReadRequest& request);

// Opens every tar shard of `dataset` through `reader` (which applies O_DIRECT); throws
// feedrate::Error naming the shard that cannot be opened.
std::vector<io::File> open_shards(const Dataset& dataset, io::Reader& reader);

// Makes slot.encoded hold at least `bytes` (a quarter more when it grows, so that batches of
// slightly larger images reuse it).
void reserve_encoded(detail::Slot& slot, std::uint64_t bytes);

}  // namespace feedrate
