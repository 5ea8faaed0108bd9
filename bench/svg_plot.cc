#include "bench/svg_plot.h"

#include <fmt/core.h>

#include <algorithm>

namespace feedrate::bench {
namespace {

constexpr double kWidth = 720, kHeight = 420;
constexpr double kLeft = 70, kRight = 70, kTop = 50, kBottom = 50;

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

}  // namespace

std::string curve_svg(const std::vector<CurvePoint>& all, int knee, const std::string& title) {
  std::vector<CurvePoint> points;
  for (const CurvePoint& p : all) {
    if (p.images_per_s > 0) points.push_back(p);
  }
  int min_w = 0, max_w = 1;
  double top_rate = 1, top_rss = 1;
  if (!points.empty()) {
    min_w = points.front().workers;
    max_w = std::max(points.back().workers, min_w + 1);
  }
  for (const CurvePoint& p : points) {
    top_rate = std::max(top_rate, p.images_per_s * 1.1);
    top_rss = std::max(top_rss, p.peak_rss_mb * 1.1);
  }
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x = [&](int w) { return kLeft + plot_w * (w - min_w) / (max_w - min_w); };
  auto y_rate = [&](double r) { return kTop + plot_h * (1 - r / top_rate); };
  auto y_rss = [&](double m) { return kTop + plot_h * (1 - m / top_rss); };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" font-size=\"15\">{3}</text>\n",
      kWidth, kHeight, kLeft, escape(title));
  // Axes, with five ticks on each value axis.
  svg += fmt::format("<path d=\"M{0} {1} V{2} H{3} V{1}\" fill=\"none\" stroke=\"#444\"/>\n", kLeft,
                     kTop, kTop + plot_h, kLeft + plot_w);
  for (int i = 0; i <= 4; ++i) {
    const double share = i / 4.0, y = kTop + plot_h * (1 - share);
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\" fill=\"#1f5fa8\">{5:.0f}</text>"
        "<text x=\"{6}\" y=\"{4}\" fill=\"#b5561b\">{7:.0f}</text>\n",
        kLeft, kLeft + plot_w, y, kLeft - 6, y + 4, top_rate * share, kLeft + plot_w + 6,
        top_rss * share);
  }
  for (const CurvePoint& p : points) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x(p.workers),
                       kTop + plot_h + 18, p.workers);
  }
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">num_workers</text>\n"
      "<text x=\"14\" y=\"{}\" fill=\"#1f5fa8\" transform=\"rotate(-90 14 {})\" "
      "text-anchor=\"middle\">images/s</text>\n"
      "<text x=\"{}\" y=\"{}\" fill=\"#b5561b\" transform=\"rotate(90 {} {})\" "
      "text-anchor=\"middle\">peak RSS (MB)</text>\n",
      kLeft + plot_w / 2, kHeight - 10, kTop + plot_h / 2, kTop + plot_h / 2, kWidth - 14,
      kTop + plot_h / 2, kWidth - 14, kTop + plot_h / 2);
  std::string rate_line, rss_line;
  for (const CurvePoint& p : points) {
    rate_line += fmt::format("{:.1f},{:.1f} ", x(p.workers), y_rate(p.images_per_s));
    rss_line += fmt::format("{:.1f},{:.1f} ", x(p.workers), y_rss(p.peak_rss_mb));
  }
  svg += fmt::format(
      "<polyline points=\"{}\" fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"2\"/>\n"
      "<polyline points=\"{}\" fill=\"none\" stroke=\"#b5561b\" stroke-width=\"2\" "
      "stroke-dasharray=\"6 4\"/>\n",
      rate_line, rss_line);
  for (const CurvePoint& p : points) {
    svg += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#1f5fa8\"><title>{} "
        "workers: {:.1f} images/s, {:.1f} MB</title></circle>\n",
        x(p.workers), y_rate(p.images_per_s), p.workers, p.images_per_s, p.peak_rss_mb);
    if (p.workers == knee) {
      svg += fmt::format(
          "<circle cx=\"{0:.1f}\" cy=\"{1:.1f}\" r=\"9\" fill=\"none\" stroke=\"#2a8a3a\" "
          "stroke-width=\"2\"/><text x=\"{0:.1f}\" y=\"{2:.1f}\" text-anchor=\"middle\" "
          "fill=\"#2a8a3a\">knee</text>\n",
          x(p.workers), y_rate(p.images_per_s), y_rate(p.images_per_s) - 14);
    }
  }
  return svg + "</svg>\n";
}

}  // namespace feedrate::bench
