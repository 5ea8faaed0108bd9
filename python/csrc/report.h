// The run's figures for Python: Loader.report() as a dict (the library's report document,
// loader/diagnosis/report_document.h, with the keys `feedrate bench --json` shares), every rank's
// verdict gathered, and the optional progress line on stderr.
// Thread-safety: call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "feedrate/loader.h"

namespace feedrate::python {

// An option an advice sets as this module's keyword: {"shuffle", "blocks"} is shuffle="blocks",
// {"num_workers", "8"} num_workers=8, {"layout", "float16"} dtype="float16".
std::string keyword_spelling(const OptionSetting& setting);

pybind11::dict report_dict(const Report& report, const RunStats& stats);

// Every rank's verdict in one place, and the slowest rank. `report` is this rank's
// report_dict(); `dist` is torch.distributed or a stand-in with is_initialized(),
// get_world_size() and all_gather_object(list, obj); None imports torch.distributed when it can.
// When it is absent or not initialised, the result holds this rank alone. A collective: with
// torch.distributed initialised every rank must call it. Returns
//   {"ranks": [{"rank", "world_size", "images_per_s", "bottleneck", "stall_fraction",
//               "advice"}, ... by rank], "slowest": <the entry with the fewest images/s>,
//    "summary": "rank 1 of 2 is the slowest: 812 images/s, bottleneck io: <its first advice>"}
pybind11::dict gather_verdicts(const pybind11::dict& report, pybind11::object dist);

// One line on stderr (loader/diagnosis/progress_line.h's, after "feedrate "), redrawn at most every
// kProgressRedrawInterval while an epoch runs, ended at its end.
class ProgressLine {
 public:
  void update(const Loader& loader, std::uint64_t epoch, std::size_t batches);
  void finish(const Loader& loader, std::uint64_t epoch, std::size_t batches);

 private:
  void draw(const Loader& loader, std::uint64_t epoch, std::size_t batches, const char* end);
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace feedrate::python
