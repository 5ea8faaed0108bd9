// Reads from an object store, s3:// or https:// (internal to loader/; a SampleSource,
// sample_source.h): a ReadAheadRunner (read_ahead_runner.h) keeps ranged GETs in flight across
// batches, and each sample's bytes are copied from it into the slot. With cache_dir, the
// local-disk cache (loader/cache/remote_mirror.h) stores every sample that arrives unchanged;
// the samples it holds are read from it by the local reader and checked, and one that reads
// badly is forgotten and fetched again from the store, alone.
//
// The store's figures reach the report by one route, store_figures() (store_figures.h): the
// report's store section (attach()) and the read statistics of stats() are both made from it.
//
// Thread-safety: as SampleSource; attach() reads the read-ahead's figures under its lock.
#pragma once

#include <memory>
#include <string>

#include "feedrate/options.h"
#include "io/remote/range_fetcher.h"
#include "loader/cache/remote_mirror.h"
#include "loader/pipeline/read_ahead_runner.h"
#include "loader/pipeline/sample_source.h"

namespace feedrate {

class RemoteReads final : public SampleSource {
 public:
  // `reader` reads the local-disk cache's files (`fallback`: why it is not io_uring);
  // `options` gives the source, cache_dir and cache_gb, the requests in flight
  // (io_queue_depth) and the read-ahead's window; `clock` (the pipeline's) times the store.
  RemoteReads(const Dataset& dataset, const LoaderOptions& options,
              std::unique_ptr<io::Reader> reader, std::string fallback, io::Clock& clock);

  void start_epoch(EpochReads epoch) override;
  void read(detail::Slot& slot) override;
  // Each sample by a ranged GET of its own (the read-ahead keeps to the epoch's order).
  void read_outside(detail::Slot& slot) override;
  // The samples delivered from the store and the local-disk cache, with the store's time to
  // first byte as the latency and its requests in flight.
  const io::ReadStats& stats() const override { return stats_; }
  // The read-ahead's window (read_ahead_plan.h).
  std::uint64_t held_bytes_limit() const override { return window_bytes_; }
  std::string backend_name() const override { return "remote"; }
  const std::string& fallback_reason() const override { return fallback_reason_; }
  // The store's figures, and the local-disk cache's when there is one.
  void attach(Report& report) const override;

 private:
  // Reads the samples the local-disk cache holds, checks them, and fetches again from the store
  // only those that read badly.
  void read_mirrored(detail::Slot& slot);
  // Fetches the slot's `samples` (positions) from the store, each by a request of its own, into
  // their places in slot.encoded; stores them in the local-disk cache when there is one.
  void fetch_alone(detail::Slot& slot, const std::vector<std::size_t>& samples);

  const Dataset& dataset_;
  std::unique_ptr<io::Reader> reader_;
  std::unique_ptr<RemoteMirror> mirror_;  // null: no local-disk cache
  const std::uint64_t window_bytes_;
  std::unique_ptr<ReadAheadRunner> read_ahead_;
  // Whether an epoch began: a source reads ahead into the next epoch from its second (a run of
  // one epoch, a benchmark or an evaluation pass, would fetch samples it never delivers,
  // sharing the cores with its last batches' decodes).
  bool began_an_epoch_ = false;
  std::unique_ptr<io::RangeFetcher> refetch_;  // samples fetched alone (fetch_alone)
  io::ReadStats stats_;
  const std::string fallback_reason_;
};

}  // namespace feedrate
