#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "bench/cli/commands.h"
#include "bench/cli/default_dataset.h"
#include "bench/cli/process_stats.h"
#include "bench/cli/progress.h"
#include "bench/cli/report_output.h"
#include "bench/cli/trace_output.h"
#include "bench/pack/transcode_probe.h"
#include "bench/tune/tune_measure.h"
#include "loader/loader.h"
#include "loader/options.h"
#include "loader/pack_cache_json.h"
#include "loader/shuffle_quality.h"
#include "loader/system_info.h"
#include "loader/verdict.h"

namespace feedrate::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchArgs {
  std::string dataset;
  int workers = feedrate::available_cpus();
  std::size_t batch = 64;
  std::uint64_t epochs = 1;
  std::uint64_t batches = 0;  // 0: whole epochs
  std::string transform = "train";
  int size = 224;
  std::string on_bad = "error";
  std::string layout = "uint8";
  std::string device = "cpu";
  std::uint64_t seed = 0;
  std::string shuffle = "full";
  bool no_shuffle = false;  // --shuffle none
  std::size_t shuffle_window_mb = LoaderOptions{}.shuffle_window_mb;
  std::size_t prefetch = LoaderOptions{}.prefetch_batches;
  std::size_t memory_budget_mb = 0;
  unsigned queue_depth = 64;
  bool pread = false;
  bool direct = false;
  bool cold = false;
  std::string throttle;
  std::uint64_t tar_chunk_kb = LoaderOptions{}.tar_chunk_bytes >> 10;
  bool json = false;
  double consume_rate = 0;  // images/s the emulated training step takes; 0: as fast as possible
  double step_ms = 0;       // or the time of one step
  std::string trace;        // Chrome trace file to write
  bool no_pack_probe = false;
  // The pack cache.
  std::string cache_dir;
  double cache_gb = 0;
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

struct EpochFigures {
  std::uint64_t images = 0;
  std::uint64_t bytes_read = 0;  // a dataset that cannot stay in page cache reads it every epoch
  double seconds = 0;
  // --cache-dir: samples read from the cache, entries written and the writer's CPU in the
  // epoch; samples cached at its end.
  std::uint64_t cache_hits = 0, cache_written = 0, cache_samples = 0;
  double cache_cpu_s = 0;
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
  if (args.step_ms > 0) return args.batch / (args.step_ms / 1e3);
  return args.consume_rate;
}

LoaderOptions loader_options(const BenchArgs& args) {
  LoaderOptions options;
  options.source = args.dataset;  // empty: run() uses the default dataset
  options.num_workers = args.workers;
  options.batch_size = args.batch;
  options.shuffle = args.no_shuffle ? ShuffleMode::kNone : parse_shuffle(args.shuffle);
  options.shuffle_window_mb = args.shuffle_window_mb;
  options.seed = args.seed;
  options.transform = parse_transform(args.transform, args.size);
  options.on_bad = parse_policy(args.on_bad);
  options.layout = parse_layout(args.layout);
  options.device = args.device;
  options.prefetch_batches = args.prefetch;
  options.memory_budget_mb = args.memory_budget_mb;
  options.io_queue_depth = args.queue_depth;
  options.force_pread = args.pread;
  options.direct_io = args.direct;
  options.throttle = args.throttle;
  options.tar_chunk_bytes = args.tar_chunk_kb << 10;
  options.training_images_per_s = training_rate(args);
  options.trace = !args.trace.empty();
  options.cache_dir = args.cache_dir;
  options.cache_gb = args.cache_gb;
  return options;
}

int run(const BenchArgs& args) {
  LoaderOptions requested = loader_options(args);
  if (requested.source.empty()) requested.source = default_dataset().string();
  Loader loader(requested);
  const Dataset& dataset = loader.dataset();
  if (!args.json) {
    fmt::print("dataset   {} ({}): {} samples, {} classes, {:.1f} MB\n", loader.options().source,
               format_name(dataset.format()), dataset.size(), dataset.classes().size(),
               dataset.total_bytes() / 1e6);
    if (dataset.ignored_files() > 0) {
      fmt::print("ignored   {} files that are not images, e.g. {}\n", dataset.ignored_files(),
                 fmt::join(dataset.ignored_examples(), ", "));
    }
  }
  if (args.cold) evict(dataset, args.json);
  Progress progress;
  TrainingStep step(training_rate(args));
  std::vector<EpochFigures> epochs;
  std::uint64_t delivered_batches = 0;
  std::vector<std::uint32_t> first_epoch_order;
  const auto run_start = Clock::now();
  const std::uint64_t epoch_count =
      args.batches > 0 ? UINT64_MAX : args.epochs;  // --batches: as many epochs as it takes
  for (std::uint64_t epoch = 0; epoch < epoch_count; ++epoch) {
    const auto start = Clock::now();
    const std::uint64_t bytes_before = loader.stats().bytes_read;
    const CacheFigures cache_before = loader.report().cache;
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
    epochs.push_back(figures);
    if (args.batches > 0 && delivered_batches == args.batches) break;
  }
  const double seconds = seconds_since(run_start);
  progress.clear();

  const RunStats stats = loader.stats();
  Report report = loader.report();
  if (!args.trace.empty()) write_chrome_trace(args.trace, loader.trace());
  const double images_per_s = stats.images / seconds;
  const double mb_per_s = stats.bytes_read / 1e6 / seconds;
  const double peak_rss_mb = peak_rss_bytes() / 1e6;
  const LoaderOptions& options = loader.options();
  const ShuffleQuality quality = order_quality(dataset, first_epoch_order, options.batch_size);
  // After the timed run, so that it takes nothing from it.
  const PackedDecodeCost packed =
      args.no_pack_probe ? PackedDecodeCost{} : probe_packed_decode(dataset, options.transform);
  if (report.verdict.bottleneck == "cpu" && packed.measured() && packed.decode_ratio() < 1) {
    report.verdict.advice.push_back(
        packing_advice(report, options.num_workers, dataset.total_bytes(),
                       {packed.decode_ratio(), packed.bytes_ratio(), packed.samples}));
  }
  if (args.json) {
    nlohmann::json out;
    out["dataset"] = options.source;
    out["format"] = format_name(dataset.format());
    out["dataset_samples"] = dataset.size();
    out["classes"] = dataset.classes().size();
    out["dataset_bytes"] = dataset.total_bytes();
    out["ignored_files"] = dataset.ignored_files();
    out["ignored_examples"] = dataset.ignored_examples();
    out["images_per_s"] = images_per_s;
    out["mb_per_s"] = mb_per_s;
    out["samples"] = stats.images;
    out["skipped"] = stats.skipped;
    out["seconds"] = seconds;
    out["peak_rss_mb"] = peak_rss_mb;
    out["io_backend"] = stats.io_backend;
    out["io_fallback_reason"] = stats.io_fallback_reason;
    out["io"] = {{"backend", stats.io.backend},
                 {"throttle", stats.io.throttle},
                 {"latency_p50_us", stats.io.latency_p50_us},
                 {"latency_p99_us", stats.io.latency_p99_us},
                 {"average_in_flight", stats.io.average_in_flight},
                 {"peak_in_flight", stats.io.peak_in_flight},
                 {"direct_io_fallbacks", stats.io.direct_io_fallbacks},
                 {"notes", stats.io.notes},
                 {"operations", stats.read_operations},
                 {"cold", args.cold}};
    out["device"] = stats.device;
    out["rank"] = report.rank;
    out["world_size"] = report.world_size;
    out["num_workers"] = options.num_workers;
    out["batch_size"] = options.batch_size;
    out["transform"] = args.transform;
    out["size"] = options.transform.size;
    out["layout"] = layout_name(options.layout);
    out["bytes_read"] = stats.bytes_read;
    out["shuffle"] = {{"mode", shuffle_name(options.shuffle)},
                      {"window_mb", options.shuffle_window_mb},
                      {"labels_per_batch", quality.labels_per_batch},
                      {"full_shuffle_labels_per_batch", quality.full_labels_per_batch},
                      {"label_mix", quality.label_mix},
                      {"spearman", quality.spearman}};
    out["decode_ms_per_image"] = report.decode_cpu_ms_per_image;
    nlohmann::json per_epoch = nlohmann::json::array();
    for (const EpochFigures& e : epochs) {
      per_epoch.push_back({{"images", e.images},
                           {"seconds", e.seconds},
                           {"images_per_s", e.seconds > 0 ? e.images / e.seconds : 0.0},
                           {"bytes_read", e.bytes_read},
                           {"mb_per_s", e.seconds > 0 ? e.bytes_read / 1e6 / e.seconds : 0.0},
                           {"cache_hits", e.cache_hits},
                           {"cache_written", e.cache_written},
                           {"cache_samples", e.cache_samples},
                           {"cache_cpu_s", e.cache_cpu_s}});
    }
    out["epochs"] = per_epoch;
    nlohmann::json skipped = nlohmann::json::array();
    for (const SkippedSample& s : stats.skipped_samples) {
      skipped.push_back({{"index", s.index}, {"where", s.where}, {"reason", s.reason}});
    }
    out["skipped_samples"] = skipped;
    out["verdict"] = verdict_json(report.verdict);
    out["stages"] = stages_json(report);
    out["training_images_per_s"] = options.training_images_per_s;
    RunCosts costs = run_costs(loader, images_per_s, peak_rss_mb);
    costs.packed = packed;
    out["costs"] = costs_json(costs);
    out["cache"] = cache_json(report.cache);
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("run       {} images in {} batches, {:.2f} s, {} worker(s), batch {}, {} {}, {}\n",
             stats.images, stats.batches, seconds, options.num_workers, options.batch_size,
             args.transform, options.transform.size, layout_name(options.layout));
  for (std::size_t e = 0; e < epochs.size() && epochs.size() > 1; ++e) {
    fmt::print("epoch {:<3} {:.1f} images/s, {:.1f} MB read at {:.1f} MB/s{}\n", e,
               epochs[e].images / epochs[e].seconds, epochs[e].bytes_read / 1e6,
               epochs[e].bytes_read / 1e6 / epochs[e].seconds,
               report.cache.enabled
                   ? fmt::format("; cache: {} read, {} written ({:.1f} s of CPU), {} cached",
                                 epochs[e].cache_hits, epochs[e].cache_written,
                                 epochs[e].cache_cpu_s, epochs[e].cache_samples)
                   : std::string());
  }
  fmt::print("speed     {:.1f} images/s, {:.1f} MB/s\n", images_per_s, mb_per_s);
  fmt::print("decode    {:.2f} ms of CPU per image\n", report.decode_cpu_ms_per_image);
  if (const std::string text = describe(packed); !text.empty()) {
    fmt::print("packing   {}\n", text);
  }
  fmt::print(
      "shuffle   {}{}: {:.2f} distinct labels per batch, {:.0f}% of a full shuffle's {:.2f}; "
      "storage-to-delivery rank correlation {:.3f}\n",
      shuffle_name(options.shuffle),
      options.shuffle == ShuffleMode::kBlocks
          ? fmt::format(" (window {} MB)", options.shuffle_window_mb)
          : std::string(),
      quality.labels_per_batch, 100 * quality.label_mix, quality.full_labels_per_batch,
      quality.spearman);
  fmt::print("memory    peak RSS {:.1f} MB\n", peak_rss_mb);
  fmt::print(
      "io        {}{}, throttle {}, read latency p50 {:.0f} us p99 {:.0f} us, {:.1f} reads "
      "in flight on average (peak {})\n",
      stats.io.backend,
      stats.io_fallback_reason.empty() ? "" : " (" + stats.io_fallback_reason + ")",
      stats.io.throttle, stats.io.latency_p50_us, stats.io.latency_p99_us,
      stats.io.average_in_flight, stats.io.peak_in_flight);
  if (!stats.io.notes.empty()) fmt::print("          {}\n", stats.io.notes);
  if (const CacheFigures& c = report.cache; c.enabled) {
    fmt::print(
        "cache     {}: {} of {} samples, {:.1f} MB ({:.3f}x their source's {:.1f} MB); hit rate "
        "{:.0f}%; this run wrote {} transcoded + {} unchanged with {:.1f} s of CPU{}{}\n",
        c.folder, c.samples, c.dataset_samples, c.bytes / 1e6,
        c.source_bytes > 0 ? static_cast<double>(c.bytes) / static_cast<double>(c.source_bytes)
                           : 0.0,
        c.source_bytes / 1e6, 100 * c.hit_rate, c.transcoded, c.unchanged, c.cpu_s,
        c.fallbacks > 0 ? fmt::format("; {} bad entries read from the source", c.fallbacks)
                        : std::string(),
        c.stopped ? "; caching stopped (see the warning)" : "");
  }
  fmt::print("device    {}\n", stats.device);
  fmt::print("skipped   {}\n", stats.skipped);
  for (const SkippedSample& s : stats.skipped_samples) {
    fmt::print("  {}: {}\n", s.where, s.reason);
  }
  fmt::print("\n{}", report_text(report));
  return 0;
}

// Registers the options of `feedrate bench` on `sub`, to be parsed into `args`.
void add_bench_options(CLI::App* sub, BenchArgs* args) {
  sub->add_option("DATASET", args->dataset,
                  "Image folder, file list, tar shard, folder of shards or a glob of shards");
  sub->add_option("-w,--workers", args->workers, "Decode threads (0: on the consumer's thread)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  sub->add_option("-b,--batch", args->batch, "Batch size")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  CLI::Option* epochs = sub->add_option("-e,--epochs", args->epochs, "Epochs to run")
                            ->check(CLI::Range(1, 1'000'000))
                            ->capture_default_str();
  sub->add_option("--batches", args->batches, "Stop after this many batches")
      ->check(CLI::Range(1, 1'000'000'000))
      ->excludes(epochs);
  sub->add_option("-t,--transform", args->transform,
                  "train, eval, or a spec such as \"rrc(176),hflip,ta_wide,normalize,erase(0.1)\" "
                  "(docs/augmentations.md); train and eval take --size")
      ->check(CLI::Validator(transform_problem, "SPEC"))
      ->capture_default_str();
  sub->add_option("--size", args->size, "Output side in pixels")
      ->check(CLI::Range(8, 4096))
      ->capture_default_str();
  sub->add_option("--on-bad", args->on_bad, "Bad sample policy: error or skip")
      ->check(CLI::IsMember(policy_names()))
      ->capture_default_str();
  sub->add_option("--layout", args->layout,
                  "uint8 (NHWC), float32 or float16 (normalised NCHW; float16 on CUDA only)")
      ->check(CLI::IsMember(layout_names()))
      ->capture_default_str();
  sub->add_option("--device", args->device, "cpu, cuda or cuda:N")->capture_default_str();
  sub->add_option("--seed", args->seed, "Shuffle and augmentation seed")->capture_default_str();
  CLI::Option* no_shuffle =
      sub->add_flag("--no-shuffle", args->no_shuffle, "Storage order (as --shuffle none)");
  sub->add_option("--shuffle", args->shuffle,
                  "full (a permutation), blocks (storage blocks in windows: sequential reads) "
                  "or none (storage order)")
      ->check(CLI::IsMember(shuffle_names()))
      ->excludes(no_shuffle)
      ->capture_default_str();
  sub->add_option("--shuffle-window-mb", args->shuffle_window_mb,
                  "--shuffle blocks: shuffle together the samples of this many MB of blocks")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--prefetch", args->prefetch, "Batches in flight")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub->add_option("--memory-budget-mb", args->memory_budget_mb,
                  "Cap the memory of the batches in flight (0: prefetch alone decides)");
  sub->add_option("--queue-depth", args->queue_depth, "Reads in flight")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  sub->add_flag("--pread", args->pread, "Use pread instead of io_uring");
  sub->add_flag("--direct", args->direct, "O_DIRECT reads (buffered where refused)");
  sub->add_flag("--cold", args->cold,
                "Evict the dataset from the page cache first, so the first epoch reads the disk");
  sub->add_option("--tar-chunk-kb", args->tar_chunk_kb,
                  "Tar shards: read nearby members as one chunk of up to this size (0: per member)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  sub->add_option("--throttle", args->throttle,
                  "Emulate a disk: hdd, sata-ssd, nvme or MBPS[,IOPS[,LATENCY_US]]");
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
  sub->add_option("--cache-dir", args->cache_dir,
                  "Pack cache: transcode the JPEGs read into this folder with spare CPU (as "
                  "feedrate pack does) and read them from there in later epochs; the same batches");
  sub->add_option("--cache-gb", args->cache_gb,
                  "Cap of the pack cache in GB (0: none, but 5% of the disk stays free)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
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
  return loader_options(args);
}

}  // namespace feedrate::bench
