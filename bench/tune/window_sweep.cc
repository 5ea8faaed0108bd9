#include "bench/tune/window_sweep.h"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>

#include "bench/tune/svg_plot.h"
#include "loader/diagnosis/report_document.h"

namespace feedrate::bench {

std::vector<WindowPoint> sweep_windows(const LoaderOptions& base,
                                       const std::vector<std::size_t>& windows_mb,
                                       const WindowProgress& progress) {
  if (windows_mb.empty()) throw std::invalid_argument("--shuffle-windows: no window given");
  std::vector<WindowPoint> points;
  for (const std::size_t window : windows_mb) {
    if (window == 0) throw std::invalid_argument("--shuffle-windows: a window must be >= 1 MB");
    LoaderOptions options = base;
    options.shuffle = ShuffleMode::kBlocks;
    options.shuffle_window_mb = window;
    points.push_back({measure_epoch(options)});
    if (progress) progress(points.back());
  }
  return points;
}

double WindowSweep::seconds() const {
  double total = 0;
  for (const WindowPoint& p : points) total += p.run.seconds;
  return total;
}

const CostSetting& WindowSweep::setting() const {
  static const CostSetting none;
  return points.empty() ? none : points.front().run.costs.setting;
}

namespace {

std::string setting_text(const WindowSweep& sweep) {
  const CostSetting& s = sweep.setting();
  return fmt::format("{}, {} worker(s){}", sweep.dataset, s.num_workers,
                     s.throttle.empty() ? "" : ", throttle " + s.throttle);
}

}  // namespace

std::string window_text(const WindowSweep& sweep) {
  std::string text =
      fmt::format("sweep     shuffle=blocks on {}, {} window(s), epoch 0 each: {:.1f} s\n\n",
                  setting_text(sweep), sweep.points.size(), sweep.seconds());
  text += fmt::format("{:>9} {:>9} {:>13} {:>9} {:>9} {:>7} {:>12}\n", "window MB", "images/s",
                      "labels/batch", "of full", "Spearman", "reads", "peak RSS MB");
  for (const WindowPoint& p : sweep.points) {
    const ShuffleQuality& q = p.run.quality;
    text += fmt::format("{:>9} {:>9.0f} {:>13.2f} {:>8.0f}% {:>9.3f} {:>7} {:>12.0f}\n",
                        p.window_mb(), p.run.costs.images_per_s, q.labels_per_batch,
                        100 * q.label_mix, q.spearman, p.run.reads, p.run.costs.peak_rss_mb);
  }
  if (!sweep.points.empty()) {
    text += fmt::format("(a full shuffle's batches hold {:.2f} distinct labels on average)\n",
                        sweep.points.front().run.quality.full_labels_per_batch);
  }
  return text;
}

nlohmann::json window_json(const WindowSweep& sweep) {
  nlohmann::json points = nlohmann::json::array();
  for (const WindowPoint& p : sweep.points) {
    const ShuffleQuality& q = p.run.quality;
    points.push_back({{"window_mb", p.window_mb()},
                      {"images_per_s", p.run.costs.images_per_s},
                      {"seconds", p.run.seconds},
                      {"peak_rss_mb", p.run.costs.peak_rss_mb},
                      {"reads", p.run.reads},
                      {"labels_per_batch", q.labels_per_batch},
                      {"full_shuffle_labels_per_batch", q.full_labels_per_batch},
                      {"label_mix", q.label_mix},
                      {"spearman", q.spearman},
                      {"costs", nlohmann::json::parse(costs_document(p.run.costs))}});
  }
  return {{"dataset", sweep.dataset},
          {"sweep", "shuffle_window_mb"},
          {"shuffle", "blocks"},
          {"workers", sweep.setting().num_workers},
          {"throttle", sweep.setting().throttle},
          {"points", points},
          {"seconds", sweep.seconds()}};
}

std::string window_svg(const WindowSweep& sweep) {
  std::vector<WindowPoint> points = sweep.points;
  std::sort(points.begin(), points.end(), [](const WindowPoint& a, const WindowPoint& b) {
    return a.window_mb() < b.window_mb();
  });
  LinePlot plot;
  plot.title = "shuffle=blocks window: " + setting_text(sweep);
  plot.x_label = "shuffle window (MB)";
  plot.left_label = "images/s";
  plot.right_label = "label mix, % of a full shuffle's";
  plot.right_top = 100;
  plot.mark_label = "default";
  PlotSeries rate{"images/s", {}, false}, mix{"% of a full shuffle's labels", {}, true};
  for (const WindowPoint& p : points) {
    if (p.window_mb() == LoaderOptions{}.shuffle_window_mb)
      plot.marked = static_cast<int>(plot.x.size());
    plot.x.push_back(static_cast<double>(p.window_mb()));
    rate.values.push_back(p.run.costs.images_per_s);
    mix.values.push_back(100 * p.run.quality.label_mix);
  }
  plot.series = {rate, mix};
  return line_plot_svg(plot);
}

}  // namespace feedrate::bench
