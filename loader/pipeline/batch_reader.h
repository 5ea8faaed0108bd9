// The read stage (internal to loader/): sets a batch's slot up, once, and asks the dataset's
// sample source (sample_source.h) to fill it. Which source reads is chosen here, at
// construction, and nothing else knows: a remote dataset's read-ahead (remote_reads.h), block
// reads for shuffle=blocks on tar shards (block_reads.h), or reads of a local disk
// (local_reads.h).
//
// Thread-safety: one thread (the I/O thread) calls start_epoch(), read() and read_ahead();
// backend_name() and fallback_reason() are fixed after construction; attach() may be called from
// any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "loader/cache/pack_cache.h"
#include "loader/pipeline/sample_source.h"

namespace feedrate {

class BatchReader {
 public:
  // Makes the io::Reader; tests pass a test double (fault injection) instead of Reader::create.
  using ReaderFactory =
      std::function<std::unique_ptr<io::Reader>(const io::ReaderOptions&, std::string*)>;

  // Chooses and makes the source of `dataset` for `options` (throws feedrate::Error naming the
  // shard when a tar shard cannot be opened). `cache` (may be null) outlives the reader.
  BatchReader(const Dataset& dataset, const LoaderOptions& options,
              const io::ReaderOptions& reader_options, const ReaderFactory& make_reader,
              PackCache* cache);

  // Before the epoch's first read().
  void start_epoch(EpochReads epoch) { source_->start_epoch(std::move(epoch)); }
  // Sets the slot up for slot.indices[0, slot.count) (labels, fields, keys, targets' places, and
  // per sample: no error, its size in the index, not from a cache, no read), then reads them: see
  // SampleSource::read.
  void read(detail::Slot& slot);
  // As read(), for samples outside the epoch's reads (SampleSource::read_outside).
  void read_outside(detail::Slot& slot);
  bool read_ahead(std::size_t blocks) { return source_->read_ahead(blocks); }

  std::uint64_t held_bytes_limit() const { return source_->held_bytes_limit(); }
  const io::ReadStats& stats() const { return source_->stats(); }
  std::string backend_name() const { return source_->backend_name(); }
  const std::string& fallback_reason() const { return source_->fallback_reason(); }
  void attach(Report& report) const { source_->attach(report); }

 private:
  // read()'s set-up of the slot.
  void set_up(detail::Slot& slot);
  // A detection dataset's samples: each one's region of the slot's box arrays (Slot::targets).
  void place_targets(detail::Slot& slot) const;

  const Dataset& dataset_;
  const std::shared_ptr<const std::vector<FieldSpec>> fields_;
  const bool keys_;                // __key__ asked
  const bool mosaic_;              // a detection transform that starts with a mosaic
  const bool two_phase_;           // a mosaic, or sizes that vary: Slot::loaded is used
  const std::size_t plane_bytes_;  // a mask plane's, when masks are asked
  std::unique_ptr<SampleSource> source_;
};

}  // namespace feedrate
