#include "bench/tune/svg_plot.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace feedrate::bench {
namespace {

constexpr double kWidth = 720, kHeight = 420;
constexpr double kLeft = 70, kRight = 70, kTop = 50, kBottom = 50;
constexpr const char* kLeftColour = "#1f5fa8";
constexpr const char* kRightColour = "#b5561b";
constexpr const char* kMarkColour = "#2a8a3a";

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// "16" for whole numbers, else one decimal.
std::string number(double value) {
  return value == static_cast<double>(static_cast<long long>(value))
             ? fmt::format("{}", static_cast<long long>(value))
             : fmt::format("{:.1f}", value);
}

// The top of a value axis: a tenth above `largest`, rounded up so that its four ticks fall on
// round numbers (1, 2, 2.5 or 5 times a power of ten).
double axis_top(double largest) {
  const double step = std::max(largest * 1.1, 1.0) / 4;
  const double magnitude = std::pow(10.0, std::floor(std::log10(step)));
  for (double m : {1.0, 2.0, 2.5, 5.0}) {
    if (m * magnitude >= step) return 4 * m * magnitude;
  }
  return 40 * magnitude;
}

}  // namespace

std::string line_plot_svg(const LinePlot& plot) {
  const std::size_t n = plot.x.size();
  double largest_left = 0, largest_right = 0;
  for (const PlotSeries& s : plot.series) {
    double& largest = s.right_axis ? largest_right : largest_left;
    for (double v : s.values) largest = std::max(largest, v);
  }
  const double top_left = axis_top(largest_left);
  const double top_right = plot.right_top > 0 && largest_right <= plot.right_top
                               ? plot.right_top
                               : axis_top(largest_right);
  const double min_x = n > 0 ? plot.x.front() : 0;
  const double max_x = n > 0 ? std::max(plot.x.back(), min_x + 1) : 1;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x = [&](double v) { return kLeft + plot_w * (v - min_x) / (max_x - min_x); };
  auto y = [&](double v, bool right) {
    return kTop + plot_h * (1 - v / (right ? top_right : top_left));
  };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" font-size=\"15\">{3}</text>\n",
      kWidth, kHeight, kLeft, escape(plot.title));
  // Axes, with five ticks on each value axis.
  svg += fmt::format("<path d=\"M{0} {1} V{2} H{3} V{1}\" fill=\"none\" stroke=\"#444\"/>\n", kLeft,
                     kTop, kTop + plot_h, kLeft + plot_w);
  for (int i = 0; i <= 4; ++i) {
    const double share = i / 4.0, tick_y = kTop + plot_h * (1 - share);
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\" fill=\"{8}\">{5:.0f}</text>"
        "<text x=\"{6}\" y=\"{4}\" fill=\"{9}\">{7:.0f}</text>\n",
        kLeft, kLeft + plot_w, tick_y, kLeft - 6, tick_y + 4, top_left * share, kLeft + plot_w + 6,
        top_right * share, kLeftColour, kRightColour);
  }
  for (double v : plot.x) {
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x(v),
                       kTop + plot_h + 18, number(v));
  }
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n"
      "<text x=\"14\" y=\"{}\" fill=\"{}\" transform=\"rotate(-90 14 {})\" "
      "text-anchor=\"middle\">{}</text>\n"
      "<text x=\"{}\" y=\"{}\" fill=\"{}\" transform=\"rotate(90 {} {})\" "
      "text-anchor=\"middle\">{}</text>\n",
      kLeft + plot_w / 2, kHeight - 10, escape(plot.x_label), kTop + plot_h / 2, kLeftColour,
      kTop + plot_h / 2, escape(plot.left_label), kWidth - 14, kTop + plot_h / 2, kRightColour,
      kWidth - 14, kTop + plot_h / 2, escape(plot.right_label));
  const PlotSeries* marked_series = nullptr;
  for (const PlotSeries& s : plot.series) {
    const char* colour = s.right_axis ? kRightColour : kLeftColour;
    std::string line;
    for (std::size_t i = 0; i < n && i < s.values.size(); ++i) {
      line += fmt::format("{:.1f},{:.1f} ", x(plot.x[i]), y(s.values[i], s.right_axis));
    }
    svg +=
        fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n",
                    line, colour, s.right_axis ? " stroke-dasharray=\"6 4\"" : "");
    for (std::size_t i = 0; i < n && i < s.values.size(); ++i) {
      svg += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>{} {}: {} "
          "{:.2f}</title></circle>\n",
          x(plot.x[i]), y(s.values[i], s.right_axis), s.right_axis ? 3 : 4, colour,
          escape(plot.x_label), number(plot.x[i]), escape(s.name), s.values[i]);
    }
    if (!s.right_axis && marked_series == nullptr) marked_series = &s;
  }
  if (marked_series != nullptr && plot.marked >= 0 &&
      static_cast<std::size_t>(plot.marked) < std::min(n, marked_series->values.size())) {
    const double mx = x(plot.x[plot.marked]), my = y(marked_series->values[plot.marked], false);
    svg += fmt::format(
        "<circle cx=\"{0:.1f}\" cy=\"{1:.1f}\" r=\"9\" fill=\"none\" stroke=\"{3}\" "
        "stroke-width=\"2\"/><text x=\"{0:.1f}\" y=\"{2:.1f}\" text-anchor=\"middle\" "
        "fill=\"{3}\">{4}</text>\n",
        mx, my, my - 14, kMarkColour, escape(plot.mark_label));
  }
  return svg + "</svg>\n";
}

std::string curve_svg(const std::vector<CurvePoint>& all, int knee, const std::string& title) {
  LinePlot plot;
  plot.title = title;
  plot.x_label = "num_workers";
  plot.left_label = "images/s";
  plot.right_label = "peak RSS (MB)";
  plot.mark_label = "knee";
  PlotSeries rate{"images/s", {}, false}, rss{"peak RSS MB", {}, true};
  for (const CurvePoint& p : all) {
    if (p.images_per_s <= 0) continue;
    if (p.workers == knee) plot.marked = static_cast<int>(plot.x.size());
    plot.x.push_back(p.workers);
    rate.values.push_back(p.images_per_s);
    rss.values.push_back(p.peak_rss_mb);
  }
  plot.series = {rate, rss};
  return line_plot_svg(plot);
}

}  // namespace feedrate::bench
