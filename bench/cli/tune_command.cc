// `feedrate tune DATASET`: its options, and the tuner (bench/tune/tuner.h: the smallest
// num_workers that reaches full speed on this machine, then prefetch and I/O queue depth at that
// count, settings past the memory limit refused) run with a Loader timed per setting, printed as
// text with a terminal chart, --plot FILE.svg or --json. With --shuffle-windows it sweeps
// shuffle=blocks' window instead (bench/tune/window_sweep.h).
#include <fmt/core.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/cli/commands.h"
#include "bench/cli/default_dataset.h"
#include "bench/cli/loader_args.h"
#include "bench/tune/svg_plot.h"
#include "bench/tune/terminal_chart.h"
#include "bench/tune/tune_measure.h"
#include "bench/tune/tune_search.h"
#include "bench/tune/tuner.h"
#include "bench/tune/window_sweep.h"
#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "feedrate/resource.h"
#include "loader/diagnosis/packing_probe.h"
#include "loader/diagnosis/report_document.h"
#include "loader/host/system_info.h"

namespace feedrate::bench {
namespace {

struct TuneArgs {
  LoaderArgs loader;  // workers: the window sweep's num_workers
  int min_workers = 1;
  int max_workers = available_cpus();
  bool exhaustive = false;
  bool no_adjust = false;
  double window_s = 3;
  std::size_t warmup_batches = 2;
  double memory_limit_mb = memory_limit_bytes() / 1e6;
  std::string plot;
  bool json = false;
  std::vector<std::size_t> shuffle_windows;  // MB; not empty: the window sweep
};

LoaderOptions options_for(const TuneArgs& args, const TuneSetting& setting) {
  LoaderOptions options = loader_options(args.loader);
  options.num_workers = setting.workers;
  options.prefetch_batches = setting.prefetch_batches;
  options.io_queue_depth = setting.queue_depth;
  return options;
}

// The tuner (bench/tune/tuner.h) on this machine: each setting a Loader timed over the window,
// each point told on stderr as it comes unless the output is JSON.
TuneResult tune(const TuneArgs& args) {
  TuneBounds bounds;
  bounds.min_workers = args.min_workers;
  bounds.max_workers = args.max_workers;
  bounds.exhaustive = args.exhaustive;
  bounds.adjust = !args.no_adjust;
  bounds.memory_limit_mb = args.memory_limit_mb;
  bounds.prefetch_batches = args.loader.prefetch_batches;
  bounds.queue_depth = args.loader.queue_depth;
  const MeasureSetting measure = [&](const TuneSetting& setting) {
    return measure_point(options_for(args, setting), args.window_s, args.warmup_batches);
  };
  ToldOfPoint told;
  if (!args.json) {
    told = [](const TuneSetting& s, const CurvePoint& point, bool adjusting) {
      if (adjusting) {
        fmt::print(stderr, "adjust    prefetch_batches {}, queue depth {}: {}\n",
                   s.prefetch_batches, s.queue_depth,
                   point.refused ? "refused, " + point.reason
                                 : fmt::format("{:.1f} images/s, bottleneck {}", point.images_per_s,
                                               resource_name(point.bottleneck, "none")));
        return;
      }
      fmt::print(stderr, "tune      {} worker(s): {}\n", s.workers,
                 point.refused && point.images_per_s == 0
                     ? "refused, " + point.reason
                     : fmt::format("{:.1f} images/s, peak RSS {:.1f} MB, bottleneck {}",
                                   point.images_per_s, point.peak_rss_mb,
                                   resource_name(point.bottleneck, "none")));
    };
  }
  return bench::tune(bounds, measure, told);
}

nlohmann::json point_json(const CurvePoint& p, const TuneSetting& s) {
  return {{"workers", s.workers},
          {"prefetch_batches", s.prefetch_batches},
          {"queue_depth", s.queue_depth},
          {"images_per_s", p.images_per_s},
          {"peak_rss_mb", p.peak_rss_mb},
          {"seconds", p.seconds},
          {"refused", p.refused},
          {"reason", p.reason},
          {"bottleneck", resource_name(p.bottleneck, "none")}};
}

void print_json(const TuneArgs& args, const TuneResult& r) {
  nlohmann::json out;
  out["dataset"] = args.loader.dataset;
  out["mode"] = args.exhaustive ? "exhaustive" : "smart";
  out["cpus"] = available_cpus();
  out["memory_limit_mb"] = args.memory_limit_mb;
  out["window_s"] = args.window_s;
  out["throttle"] = args.loader.throttle;
  nlohmann::json curve = nlohmann::json::array();
  for (const CurvePoint& p : r.search.points) {
    curve.push_back(
        point_json(p, {p.workers, args.loader.prefetch_batches, args.loader.queue_depth}));
  }
  out["curve"] = curve;  // in the order measured
  out["workers_measured"] = r.search.points.size();
  out["search_seconds"] = r.search.seconds;
  nlohmann::json adjust = nlohmann::json::array();
  for (const AdjustPoint& a : r.adjust) adjust.push_back(point_json(a.point, a.setting));
  out["adjust"] = adjust;
  out["seconds"] = r.seconds;
  double best_rate = 0, knee_rate = 0;
  for (const CurvePoint& p : r.search.points) {
    if (p.workers == r.search.best) best_rate = p.images_per_s;
    if (p.workers == r.search.knee) knee_rate = p.images_per_s;
  }
  out["best"] = {{"workers", r.search.best}, {"images_per_s", best_rate}};
  out["knee"] = {{"workers", r.search.knee}, {"images_per_s", knee_rate}};
  out["recommended"] = {{"workers", r.recommended.workers},
                        {"prefetch_batches", r.recommended.prefetch_batches},
                        {"queue_depth", r.recommended.queue_depth},
                        {"images_per_s", r.recommended_images_per_s},
                        {"bottleneck", resource_name(r.recommended_bottleneck, "none")}};
  RunCosts recorded = r.recommended_costs;  // with what packing would save, for `feedrate plan`
  const LoaderOptions options = options_for(args, r.recommended);
  recorded.packed = probe_packed_decode(
      Dataset::open(options.source, options.allow_paths_outside_root, options.allow_empty_classes,
                    SampleSpec::of(options)),
      options.transform);
  out["costs"] = nlohmann::json::parse(costs_document(recorded));
  fmt::print("{}\n", out.dump(2));
}

void print_text(const TuneArgs& args, const TuneResult& r) {
  fmt::print("dataset   {}\n", args.loader.dataset);
  fmt::print(
      "search    {}: {} num_workers setting(s) measured in {:.1f} s ({:.1f} s per "
      "window), {:.1f} s in all\n\n",
      args.exhaustive ? "exhaustive" : "smart", r.search.points.size(), r.search.seconds,
      args.window_s, r.seconds);
  fmt::print("{}\n", terminal_chart(by_workers(r.search), r.search.knee));
  fmt::print(
      "knee      {} worker(s): the smallest count with >= {:.0f}% of the best ({} "
      "worker(s))\n",
      r.search.knee, 100 * kKneeShare, r.search.best);
  fmt::print(
      "recommend --workers {} --prefetch-batches {} --queue-depth {}: {:.1f} images/s, bottleneck "
      "{}\n",
      r.recommended.workers, r.recommended.prefetch_batches, r.recommended.queue_depth,
      r.recommended_images_per_s, resource_name(r.recommended_bottleneck, "none"));
}

int run_window_sweep(const TuneArgs& args) {
  WindowSweep sweep{args.loader.dataset, {}};
  sweep.points = sweep_windows(
      options_for(args,
                  {args.loader.workers, args.loader.prefetch_batches, args.loader.queue_depth}),
      args.shuffle_windows, [&](const WindowPoint& p) {
        if (args.json) return;
        fmt::print(stderr,
                   "window    {} MB: {:.1f} images/s, {:.0f}% of a full "
                   "shuffle's labels\n",
                   p.window_mb(), p.run.costs.images_per_s, 100 * p.run.quality.label_mix);
      });
  if (!args.plot.empty()) {
    std::ofstream svg(args.plot);
    svg << window_svg(sweep);
    if (!svg) throw std::runtime_error("cannot write the plot to " + args.plot);
  }
  if (args.json) {
    fmt::print("{}\n", window_json(sweep).dump(2));
    return 0;
  }
  fmt::print("{}", window_text(sweep));
  if (!args.plot.empty()) fmt::print("plot      {}\n", args.plot);
  return 0;
}

int run(TuneArgs args) {
  if (args.max_workers < args.min_workers) {
    throw std::runtime_error(fmt::format("--max-workers {} is below --min-workers {}",
                                         args.max_workers, args.min_workers));
  }
  check_loader_options(loader_options(args.loader));  // before the default dataset is made
  if (args.loader.dataset.empty()) args.loader.dataset = default_dataset().string();
  if (!args.shuffle_windows.empty()) return run_window_sweep(args);
  const TuneResult result = tune(args);
  if (!args.plot.empty()) {
    std::ofstream svg(args.plot);
    svg << curve_svg(by_workers(result.search), result.search.knee,
                     "feedrate tune: " + args.loader.dataset);
    if (!svg) throw std::runtime_error("cannot write the plot to " + args.plot);
  }
  if (args.json) {
    print_json(args, result);
  } else {
    print_text(args, result);
    if (!args.plot.empty()) fmt::print("plot      {}\n", args.plot);
  }
  return 0;
}

}  // namespace

Command add_tune_command(CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* sub = app.add_subcommand(
      "tune",
      "Find the smallest num_workers that reaches full speed on this machine, then adjust "
      "prefetch and I/O queue depth");
  const LoaderArgOptions loader = add_loader_options(sub, &args->loader);
  sub->add_option("--min-workers", args->min_workers,
                  "Smallest num_workers to try (0 decodes on the consumer's thread)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  sub->add_option("--max-workers", args->max_workers,
                  "Largest num_workers to try (default: the CPUs available; may be larger)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  sub->add_flag("--exhaustive", args->exhaustive, "Measure every num_workers in the range");
  sub->add_flag("--no-adjust", args->no_adjust, "Skip the prefetch / queue-depth adjustment");
  sub->add_option("--window", args->window_s, "Seconds each setting is timed after warm-up")
      ->check(CLI::Range(0.05, 600.0))
      ->capture_default_str();
  sub->add_option("--warmup-batches", args->warmup_batches, "Batches delivered before timing")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  sub->add_option("--memory-limit-mb", args->memory_limit_mb,
                  "Refuse settings whose peak RSS would pass 90% of this (default: the "
                  "container's limit, else RAM)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  CLI::Option* windows =
      sub->add_option(
             "--shuffle-windows", args->shuffle_windows,
             "Instead of the search: read epoch 0 with --shuffle blocks once per window "
             "(MB, comma-separated: 16,32,64,128) and report images/s against shuffle quality")
          ->delimiter(',')
          ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  // The search chooses num_workers and the sweep the shuffle: --workers serves the sweep only.
  loader.workers->needs(windows);
  windows->excludes(loader.shuffle)
      ->excludes(loader.no_shuffle)
      ->excludes(loader.shuffle_window_mb);
  sub->add_option("--plot", args->plot,
                  "Write the curve (or the window sweep) as a self-contained SVG to this file");
  sub->add_flag("--json", args->json, "Print one JSON object instead of text");
  return [args] { return run(*args); };
}

}  // namespace feedrate::bench
