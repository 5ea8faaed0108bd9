#include "bench/cli/progress.h"

#include <fmt/core.h>
#include <unistd.h>

#include <string>

#include "loader/diagnosis/progress_line.h"

namespace feedrate::bench {

Progress::Progress()
    : enabled_(::isatty(STDERR_FILENO) == 1), last_(std::chrono::steady_clock::now()) {}

bool Progress::due() const {
  return enabled_ && std::chrono::steady_clock::now() - last_ >= kProgressRedrawInterval;
}

void Progress::update(std::uint64_t epoch, std::uint64_t images, std::uint64_t total,
                      const Report& report) {
  if (!due()) return;
  last_ = std::chrono::steady_clock::now();
  fmt::print(stderr, "\r  {:<118}", progress_line(epoch, images, total, "images", report));
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
