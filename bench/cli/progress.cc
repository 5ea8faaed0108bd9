#include "bench/cli/progress.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace feedrate::bench {
namespace {

std::string bar(double fraction) {
  constexpr int kWidth = 5;
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kWidth + 0.5);
  return "[" + std::string(filled, '#') + std::string(kWidth - filled, ' ') + "]";
}

}  // namespace

Progress::Progress()
    : enabled_(::isatty(STDERR_FILENO) == 1), last_(std::chrono::steady_clock::now()) {}

bool Progress::due() const {
  return enabled_ && std::chrono::steady_clock::now() - last_ >= std::chrono::milliseconds(500);
}

void Progress::update(std::uint64_t epoch, std::uint64_t images, std::uint64_t total,
                      const Report& report) {
  if (!due()) return;
  last_ = std::chrono::steady_clock::now();
  std::string stages;
  for (const StageFigures& stage : report.stages) {
    if (stage.name == "assemble") continue;
    stages += " " + stage.name + bar(stage.utilization);
  }
  fmt::print(stderr, "\r  epoch {} {}/{}  {:.0f} img/s {:.0f} MB/s {}  bottleneck: {:<8}", epoch,
             images, total, report.images_per_s, report.mb_per_s, stages,
             report.verdict.bottleneck);
}

void Progress::show(const std::string& text) {
  if (!enabled_) return;
  last_ = std::chrono::steady_clock::now();
  fmt::print(stderr, "\r{:<80}", text);
}

void Progress::clear() {
  if (enabled_) fmt::print(stderr, "\r{:120}\r", "");
}

}  // namespace feedrate::bench
