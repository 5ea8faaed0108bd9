// `feedrate tune DATASET`: finds the smallest num_workers that reaches full speed on this
// machine (bench/tune/tune_search.h), then adjusts prefetch depth and I/O queue depth at that
// count. Every point reports images/s and peak RSS; settings that would pass the memory limit are
// refused rather than run. Text with a terminal chart, --plot FILE.svg, --json. With
// --shuffle-windows it sweeps shuffle=blocks' window instead (bench/tune/window_sweep.h).
#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/cli/commands.h"
#include "bench/cli/default_dataset.h"
#include "bench/cli/loader_args.h"
#include "bench/tune/svg_plot.h"
#include "bench/tune/terminal_chart.h"
#include "bench/tune/tune_measure.h"
#include "bench/tune/tune_search.h"
#include "bench/tune/window_sweep.h"
#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "feedrate/resource.h"
#include "loader/diagnosis/packing_probe.h"
#include "loader/diagnosis/report_document.h"
#include "loader/host/system_info.h"

namespace feedrate::bench {
namespace {

// A setting may use at most this share of the memory limit: past the limit the process is
// killed, and the measured peak moves a little from run to run.
constexpr double kMemoryMargin = 0.9;

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

struct Setting {
  int workers = 1;
  std::size_t prefetch_batches = 3;
  unsigned queue_depth = 64;
};

// A point of the adjustment phase, at the chosen num_workers.
struct AdjustPoint {
  Setting setting;
  CurvePoint point;
};

LoaderOptions options_for(const TuneArgs& args, const Setting& setting) {
  LoaderOptions options = loader_options(args.loader);
  options.num_workers = setting.workers;
  options.prefetch_batches = setting.prefetch_batches;
  options.io_queue_depth = setting.queue_depth;
  return options;
}

class Tuner {
 public:
  explicit Tuner(const TuneArgs& args)
      : args_(args), margin_mb_(kMemoryMargin * args.memory_limit_mb) {}

  // Measures `setting` unless its projected peak RSS passes the margin; a measured peak past
  // it marks the point refused too.
  CurvePoint measure(const Setting& setting, double projected_mb) {
    CurvePoint point;
    point.workers = setting.workers;
    if (projected_mb > margin_mb_) {
      point.refused = true;
      point.reason =
          fmt::format("projected peak RSS {:.0f} MB passes {:.0f}% of the {:.0f} MB limit",
                      projected_mb, 100 * kMemoryMargin, args_.memory_limit_mb);
      return point;
    }
    const PointFigures figures =
        measure_point(options_for(args_, setting), args_.window_s, args_.warmup_batches);
    point.images_per_s = figures.costs.images_per_s;
    point.peak_rss_mb = figures.costs.peak_rss_mb;
    point.seconds = figures.seconds;
    point.bottleneck = figures.bottleneck;
    if (figures.costs.peak_rss_mb > margin_mb_) {
      point.refused = true;
      point.reason =
          fmt::format("measured peak RSS {:.0f} MB passes {:.0f}% of the {:.0f} MB limit",
                      figures.costs.peak_rss_mb, 100 * kMemoryMargin, args_.memory_limit_mb);
    }
    costs_[key(setting)] = figures.costs;
    return point;
  }

  // Peak RSS projected for `workers` from the points measured so far: the nearest measured
  // count below, plus the slope between the two highest measured counts below (never negative).
  double project_workers(const std::vector<CurvePoint>& measured, int workers) const {
    std::vector<const CurvePoint*> below;
    for (const CurvePoint& p : measured) {
      if (p.workers < workers && p.peak_rss_mb > 0) below.push_back(&p);
    }
    if (below.empty()) return 0;
    std::sort(below.begin(), below.end(),
              [](const CurvePoint* a, const CurvePoint* b) { return a->workers < b->workers; });
    const CurvePoint& top = *below.back();
    double slope = 0;
    if (below.size() >= 2) {
      const CurvePoint& next = *below[below.size() - 2];
      slope = std::max(0.0, (top.peak_rss_mb - next.peak_rss_mb) / (top.workers - next.workers));
    }
    return top.peak_rss_mb + slope * (workers - top.workers);
  }

  const RunCosts* costs(const Setting& s) const {
    const auto found = costs_.find(key(s));
    return found == costs_.end() ? nullptr : &found->second;
  }

 private:
  static std::tuple<int, std::size_t, unsigned> key(const Setting& s) {
    return {s.workers, s.prefetch_batches, s.queue_depth};
  }
  const TuneArgs& args_;
  const double margin_mb_;
  std::map<std::tuple<int, std::size_t, unsigned>, RunCosts> costs_;
};

struct TuneResult {
  SearchResult search;
  std::vector<AdjustPoint> adjust;
  Setting recommended;
  double recommended_images_per_s = 0;
  std::optional<Resource> recommended_bottleneck;
  double seconds = 0;
};

TuneResult tune(const TuneArgs& args, Tuner& tuner) {
  TuneResult result;
  std::vector<CurvePoint> measured;
  const MeasureWorkers measure = [&](int workers) {
    CurvePoint point =
        tuner.measure({workers, args.loader.prefetch_batches, args.loader.queue_depth},
                      tuner.project_workers(measured, workers));
    measured.push_back(point);
    if (!args.json) {
      fmt::print(stderr, "tune      {} worker(s): {}\n", workers,
                 point.refused && point.images_per_s == 0
                     ? "refused, " + point.reason
                     : fmt::format("{:.1f} images/s, peak RSS {:.1f} MB, bottleneck {}",
                                   point.images_per_s, point.peak_rss_mb,
                                   resource_name(point.bottleneck, "none")));
    }
    return point;
  };
  result.search = args.exhaustive ? exhaustive_search(args.min_workers, args.max_workers, measure)
                                  : smart_search(args.min_workers, args.max_workers, measure);
  result.seconds = result.search.seconds;
  if (result.search.knee < 0) {
    throw std::runtime_error(fmt::format(
        "every setting tried would pass the memory limit ({:.0f} MB): {}", args.memory_limit_mb,
        result.search.points.empty() ? "" : result.search.points.front().reason));
  }
  result.recommended = {result.search.knee, args.loader.prefetch_batches, args.loader.queue_depth};
  for (const CurvePoint& p : result.search.points) {
    if (p.workers == result.search.knee) {
      result.recommended_images_per_s = p.images_per_s;
      result.recommended_bottleneck = p.bottleneck;
    }
  }
  if (args.no_adjust) return result;
  // Deeper prefetch hides uneven decode times; the queue depth suits the disk's parallelism.
  const Setting knee = result.recommended;
  const RunCosts& knee_costs = *tuner.costs(knee);
  const double knee_rss = knee_costs.peak_rss_mb;
  const double slot_mb = static_cast<double>(knee_costs.setting.batch_size) *
                         (knee_costs.h2d_bytes_per_image + knee_costs.image.bytes_per_image) / 1e6;
  const std::vector<Setting> candidates = {
      {knee.workers, knee.prefetch_batches * 2, knee.queue_depth},
      {knee.workers, knee.prefetch_batches, std::max(1u, knee.queue_depth / 4)},
      {knee.workers, knee.prefetch_batches, std::min(4096u, knee.queue_depth * 4)}};
  for (const Setting& s : candidates) {
    const double projected = knee_rss + slot_mb * (static_cast<double>(s.prefetch_batches) -
                                                   static_cast<double>(knee.prefetch_batches));
    AdjustPoint adjusted{s, tuner.measure(s, projected)};
    result.seconds += adjusted.point.seconds;
    if (!args.json) {
      fmt::print(stderr, "adjust    prefetch_batches {}, queue depth {}: {}\n", s.prefetch_batches,
                 s.queue_depth,
                 adjusted.point.refused
                     ? "refused, " + adjusted.point.reason
                     : fmt::format("{:.1f} images/s, bottleneck {}", adjusted.point.images_per_s,
                                   resource_name(adjusted.point.bottleneck, "none")));
    }
    if (!adjusted.point.refused &&
        adjusted.point.images_per_s >= result.recommended_images_per_s * (1 + kClimbGain)) {
      result.recommended = s;
      result.recommended_images_per_s = adjusted.point.images_per_s;
      result.recommended_bottleneck = adjusted.point.bottleneck;
    }
    result.adjust.push_back(adjusted);
  }
  return result;
}

nlohmann::json point_json(const CurvePoint& p, const Setting& s) {
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

void print_json(const TuneArgs& args, const TuneResult& r, const Tuner& tuner) {
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
  if (const RunCosts* costs = tuner.costs(r.recommended)) {
    RunCosts recorded = *costs;  // with what packing would save, for `feedrate plan`
    recorded.packed = probe_packed_decode(Dataset::open(args.loader.dataset),
                                          options_for(args, r.recommended).transform);
    out["costs"] = nlohmann::json::parse(costs_document(recorded));
  }
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
  Tuner tuner(args);
  const TuneResult result = tune(args, tuner);
  if (!args.plot.empty()) {
    std::ofstream svg(args.plot);
    svg << curve_svg(by_workers(result.search), result.search.knee,
                     "feedrate tune: " + args.loader.dataset);
    if (!svg) throw std::runtime_error("cannot write the plot to " + args.plot);
  }
  if (args.json) {
    print_json(args, result, tuner);
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
