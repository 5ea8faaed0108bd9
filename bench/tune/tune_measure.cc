#include "bench/tune/tune_measure.h"

#include <chrono>
#include <optional>
#include <stdexcept>

#include "bench/cli/process_stats.h"
#include "feedrate/loader.h"

namespace feedrate::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Batches in sampler order, restarting the epoch (the next one) when one ends.
class Feed {
 public:
  explicit Feed(Loader& loader) : loader_(loader) { loader_.start_epoch(epoch_); }
  std::size_t next() {
    for (int empty = 0; empty < 2; ++empty) {
      if (std::optional<Batch> batch = loader_.next()) return batch->size();
      loader_.start_epoch(++epoch_);
    }
    throw std::runtime_error("tune: " + loader_.options().source + " delivers no batches");
  }

 private:
  Loader& loader_;
  std::uint64_t epoch_ = 0;
};

}  // namespace

PointFigures measure_point(const LoaderOptions& options, double window_s,
                           std::size_t warmup_batches) {
  const auto start = Clock::now();
  reset_peak_rss();
  PointFigures figures;
  {
    Loader loader(options);
    Feed feed(loader);
    for (std::size_t i = 0; i < warmup_batches; ++i) feed.next();
    const auto window_start = Clock::now();
    std::uint64_t images = 0;
    double elapsed = 0;
    while (elapsed < window_s) {
      images += feed.next();
      elapsed = seconds_between(window_start, Clock::now());
    }
    const Report report = loader.report();
    figures.costs = report.costs;
    figures.bottleneck = report.verdict.bottleneck;
    figures.costs.images_per_s = images / elapsed;  // the window's, without the warm-up
  }
  figures.seconds = seconds_between(start, Clock::now());
  return figures;
}

EpochRun measure_epoch(const LoaderOptions& options) {
  reset_peak_rss();
  EpochRun figures;
  Loader loader(options);
  std::vector<std::uint32_t> order;
  const auto start = Clock::now();
  loader.start_epoch(0);
  while (std::optional<Batch> batch = loader.next()) {
    order.insert(order.end(), batch->indices().begin(), batch->indices().end());
  }
  figures.seconds = seconds_between(start, Clock::now());
  const RunStats stats = loader.stats();
  figures.reads = stats.read_operations;
  figures.quality = order_quality(loader.dataset(), order, loader.options().batch_size);
  figures.costs = loader.report().costs;
  // The epoch's, from its start.
  figures.costs.images_per_s = figures.seconds > 0 ? stats.images / figures.seconds : 0;
  return figures;
}

ShuffleQuality order_quality(const Dataset& dataset, const std::vector<std::uint32_t>& delivered,
                             std::size_t batch_size) {
  std::vector<std::int32_t> labels(dataset.size());
  for (std::size_t i = 0; i < dataset.size(); ++i) labels[i] = dataset.sample(i).label;
  return shuffle_quality(delivered, labels, batch_size);
}

}  // namespace feedrate::bench
