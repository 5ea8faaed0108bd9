#include "loader/diagnosis/progress_line.h"

#include <algorithm>
#include <cmath>

namespace feedrate {
namespace {

std::string bar(double fraction) {
  constexpr int kWidth = 5;
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kWidth + 0.5);
  // Appended, not "[" + std::string(...): GCC 12 warns (-Wrestrict, falsely) on that.
  std::string text = "[";
  text.append(filled, '#').append(kWidth - filled, ' ') += ']';
  return text;
}

}  // namespace

std::string progress_line(std::uint64_t epoch, std::uint64_t done, std::uint64_t total,
                          std::string_view unit, const Report& report) {
  std::string line = "epoch " + std::to_string(epoch) + ": " + std::to_string(done) + "/" +
                     std::to_string(total) + " " + std::string(unit) + ", " +
                     std::to_string(std::lround(report.images_per_s)) + " images/s, " +
                     std::to_string(std::lround(report.mb_per_s)) + " MB/s,";
  for (const StageFigures& stage : report.stages) {
    if (stage.name == "assemble") continue;
    line += " " + stage.name + bar(stage.utilization);
  }
  return line + ", bottleneck " + resource_name(report.verdict.bottleneck, "none");
}

}  // namespace feedrate
