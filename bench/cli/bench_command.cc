#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "bench/cli/bench_report.h"
#include "bench/cli/commands.h"
#include "bench/cli/default_dataset.h"
#include "bench/cli/loader_args.h"
#include "bench/cli/process_stats.h"
#include "bench/cli/progress.h"
#include "bench/cli/report_output.h"
#include "bench/cli/trace_output.h"
#include "bench/tune/tune_measure.h"
#include "feedrate/loader.h"
#include "feedrate/options.h"
#include "loader/diagnosis/packing_probe.h"
#include "loader/diagnosis/shuffle_quality.h"
#include "loader/host/system_info.h"

namespace feedrate::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchArgs {
  LoaderArgs loader;
  std::uint64_t epochs = 1;
  std::uint64_t batches = 0;  // 0: whole epochs
  bool cold = false;
  bool json = false;
  double consume_rate = 0;  // images/s the emulated training step takes; 0: as fast as possible
  double step_ms = 0;       // or the time of one step
  std::string trace;        // Chrome trace file to write
  bool no_pack_probe = false;
};

// Emulates a training step of a fixed speed: each batch "trains" for size / rate seconds,
// measured from the previous step's end so that a slow loader is not hidden.
class TrainingStep {
 public:
  explicit TrainingStep(double images_per_s) : images_per_s_(images_per_s) {}
  void run(std::size_t images) {
    if (images_per_s_ <= 0) return;
    std::this_thread::sleep_for(std::chrono::duration<double>(images / images_per_s_));
  }

 private:
  double images_per_s_;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// --cold: drop the dataset's pages from the page cache so the first epoch reads the disk.
void evict(const Dataset& dataset, bool quiet) {
  std::string first_error;
  if (const std::size_t failed = dataset.evict_from_page_cache(&first_error); failed > 0) {
    fmt::print(stderr, "feedrate: could not evict {} file(s) from the page cache (first: {})\n",
               failed, first_error);
  } else if (!quiet) {
    fmt::print("cold      evicted {} file(s) from the page cache\n", dataset.files().size());
  }
}

double training_rate(const BenchArgs& args) {
  if (args.step_ms > 0) return args.loader.batch / (args.step_ms / 1e3);
  return args.consume_rate;
}

LoaderOptions bench_options(const BenchArgs& args) {
  LoaderOptions options = loader_options(args.loader);  // source empty: the default dataset
  options.training_images_per_s = training_rate(args);
  options.trace = !args.trace.empty();
  return options;
}

// Runs the epochs, then the measurements that must not take from them.
BenchResult measure(const BenchArgs& args, const LoaderOptions& requested) {
  Loader loader(requested);
  const Dataset& dataset = loader.dataset();
  BenchResult r;
  r.dataset = {loader.options().source,   dataset.format(),      dataset.size(),
               dataset.classes().size(),  dataset.total_bytes(), dataset.ignored_files(),
               dataset.ignored_examples()};
  if (!args.json) fmt::print("{}", dataset_text(r.dataset));
  r.cold = args.cold;
  if (args.cold) evict(dataset, args.json);
  Progress progress;
  TrainingStep step(training_rate(args));
  std::uint64_t delivered_batches = 0;
  std::vector<std::uint32_t> first_epoch_order;
  const std::uint64_t epoch_count =
      args.batches > 0 ? UINT64_MAX : args.epochs;  // --batches: as many epochs as it takes
  CacheFigures cache_before = loader.report().cache;
  for (std::uint64_t epoch = 0; epoch < epoch_count; ++epoch) {
    const auto start = Clock::now();
    const std::uint64_t bytes_before = loader.stats().bytes_read;
    EpochFigures figures;
    loader.start_epoch(epoch);
    while (std::optional<Batch> batch = loader.next()) {
      batch->wait(nullptr);  // a CUDA device: the default stream waits for the copy
      step.run(batch->size());
      figures.images += batch->size();
      if (epoch == 0) {
        first_epoch_order.insert(first_epoch_order.end(), batch->indices().begin(),
                                 batch->indices().end());
      }
      ++delivered_batches;
      if (progress.due()) {
        progress.update(epoch, figures.images, loader.samples_per_epoch(), loader.report());
      }
      if (args.batches > 0 && delivered_batches == args.batches) break;
    }
    figures.seconds = seconds_since(start);
    figures.bytes_read = loader.stats().bytes_read - bytes_before;
    const CacheFigures cache_after = loader.report().cache;
    figures.cache_hits = cache_after.hits - cache_before.hits;
    figures.cache_written = cache_after.transcoded + cache_after.unchanged -
                            cache_before.transcoded - cache_before.unchanged;
    figures.cache_samples = cache_after.samples;
    figures.cache_cpu_s = cache_after.cpu_s - cache_before.cpu_s;
    cache_before = cache_after;
    r.epochs.push_back(figures);
    if (args.batches > 0 && delivered_batches == args.batches) break;
  }
  progress.clear();

  r.stats = loader.stats();
  r.report = loader.report();
  if (!args.trace.empty()) write_chrome_trace(args.trace, loader.trace());
  r.options = loader.options();
  r.transform = args.loader.transform;
  r.quality = order_quality(dataset, first_epoch_order, r.options.batch_size);
  // After the timed run, so that it takes nothing from it.
  add_packing(r.report, args.no_pack_probe ? PackedDecodeCost{}
                                           : probe_packed_decode(dataset, r.options.transform));
  return r;
}

int run(const BenchArgs& args) {
  LoaderOptions requested = bench_options(args);
  check_loader_options(requested);  // before the default dataset is made
  if (requested.source.empty()) requested.source = default_dataset().string();
  const BenchResult result = measure(args, requested);
  if (args.json) {
    fmt::print("{}\n", bench_json(result).dump(2));
  } else {
    fmt::print("{}", bench_text(result));
  }
  return 0;
}

// Registers the options of `feedrate bench` on `sub`, to be parsed into `args`.
void add_bench_options(CLI::App* sub, BenchArgs* args) {
  add_loader_options(sub, &args->loader);
  CLI::Option* epochs = sub->add_option("-e,--epochs", args->epochs, "Epochs to run")
                            ->check(CLI::Range(1, 1'000'000))
                            ->capture_default_str();
  sub->add_option("--batches", args->batches, "Stop after this many batches")
      ->check(CLI::Range(1, 1'000'000'000))
      ->excludes(epochs);
  sub->add_flag("--cold", args->cold,
                "Evict the dataset from the page cache first, so the first epoch reads the disk");
  CLI::Option* rate = sub->add_option("--consume-rate", args->consume_rate,
                                      "Emulate a training step that takes this many images/s")
                          ->check(CLI::PositiveNumber);
  sub->add_option("--step-ms", args->step_ms, "Emulate a training step of this many ms per batch")
      ->check(CLI::PositiveNumber)
      ->excludes(rate);
  sub->add_option("--trace", args->trace,
                  "Write a Chrome trace (Perfetto) timeline of every stage to this file");
  sub->add_flag("--no-pack-probe", args->no_pack_probe,
                "Skip the measurement of what packing (feedrate pack) would save: a few of the "
                "dataset's JPEGs transcoded in memory and decoded both ways after the run");
  sub->add_flag("--json", args->json, "Print one JSON object instead of text");
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand(
      "bench",
      "Measure how fast this machine feeds training from DATASET (default: a generated "
      "1,000-image dataset)");
  add_bench_options(sub, args.get());
  return [args] { return run(*args); };
}

LoaderOptions parse_bench_options(std::vector<std::string> arguments) {
  CLI::App app;
  BenchArgs args;
  add_bench_options(&app, &args);
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last first
  app.parse(arguments);
  return bench_options(args);
}

}  // namespace feedrate::bench
