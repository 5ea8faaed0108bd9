#include "bench/tune/terminal_chart.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace feedrate::bench {
namespace {

std::string bar(double value, double full, int width, const char* cell) {
  const int cells = full > 0 ? static_cast<int>(std::lround(value / full * width)) : 0;
  std::string text;
  for (int i = 0; i < cells; ++i) text += cell;
  return text + std::string(static_cast<std::size_t>(width - cells), ' ');
}

}  // namespace

std::string terminal_chart(const std::vector<CurvePoint>& points, int knee, int width) {
  double top_rate = 0, top_rss = 0;
  for (const CurvePoint& p : points) {
    top_rate = std::max(top_rate, p.images_per_s);
    top_rss = std::max(top_rss, p.peak_rss_mb);
  }
  const int rss_width = std::max(4, width / 3);
  std::string text = fmt::format("{:>7}  {:<{}} {:>9}  {:<{}} {:>9}\n", "workers", "images/s",
                                 width, "", "peak RSS", rss_width, "");
  for (const CurvePoint& p : points) {
    if (p.refused && p.images_per_s == 0) {
      text += fmt::format("{:>7}  refused: {}\n", p.workers, p.reason);
      continue;
    }
    text +=
        fmt::format("{:>7}  {} {:>9.1f}  {} {:>6.1f} MB{}{}\n", p.workers,
                    bar(p.images_per_s, top_rate, width, "█"), p.images_per_s,
                    bar(p.peak_rss_mb, top_rss, rss_width, "░"), p.peak_rss_mb,
                    p.workers == knee ? "  <- knee" : "", p.refused ? "  (refused: memory)" : "");
  }
  return text;
}

}  // namespace feedrate::bench
