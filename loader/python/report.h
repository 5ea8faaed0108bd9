// The run's figures for Python: Loader.report() as a dict (the verdict, per-stage figures, the
// I/O backend and the skipped samples), and the optional progress line on stderr.
// Thread-safety: call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>

#include "loader/loader.h"

namespace feedrate::python {

pybind11::dict report_dict(const Report& report, const RunStats& stats);

// One line on stderr, redrawn at most twice a second while an epoch runs, ended at its end:
//   feedrate epoch 0: 12/16 batches, 742 images/s, bottleneck cpu
class ProgressLine {
 public:
  void update(const Loader& loader, std::uint64_t epoch, std::size_t batches);
  void finish(const Loader& loader, std::uint64_t epoch, std::size_t batches);

 private:
  void draw(const Loader& loader, std::uint64_t epoch, std::size_t batches, const char* end);
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace feedrate::python
