// The live progress line of `feedrate bench` on stderr (loader/diagnosis/progress_line.h's text),
// or any one-line text (`feedrate pack`). Quiet when stderr is not a terminal. Thread-safety: one
// thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "feedrate/report.h"

namespace feedrate::bench {

class Progress {
 public:
  Progress();
  // Redraws at most twice a second.
  void update(std::uint64_t epoch, std::uint64_t images, std::uint64_t total, const Report& report);
  // Draws `text` in place of the previous line.
  void show(const std::string& text);
  // Whether update() or show() would draw now (lets the caller skip building a Report).
  bool due() const;
  void clear();

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace feedrate::bench
