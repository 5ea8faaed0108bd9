#include "python/csrc/report.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "loader/diagnosis/cache_json.h"
#include "loader/diagnosis/progress_line.h"
#include "loader/diagnosis/report_json.h"
#include "loader/diagnosis/skipped_json.h"

namespace feedrate::python {
namespace py = pybind11;

py::dict report_dict(const Report& report, const RunStats& stats) {
  const nlohmann::json figures = {
      {"rank", report.run.rank},
      {"world_size", report.run.world_size},
      {"verdict", verdict_json(report)},
      {"capacities", capacities_json(report)},
      {"stages", stages_json(report)},
      {"costs", costs_json(report.costs)},
      {"wall_s", report.wall_s},
      {"images", report.images},
      {"images_per_s", report.images_per_s},
      {"mb_per_s", report.mb_per_s},
      {"decode_cpu_ms_per_image", report.decode_cpu_ms_per_image},
      {"read_bytes_per_image", report.read_bytes_per_image},
      {"consumer_ms_per_batch", report.consumer_ms_per_batch},
      {"batches", stats.batches},
      {"skipped", stats.skipped},
      {"skipped_samples", skipped_json(stats.skipped_samples)},
      {"io_backend", stats.io.backend.empty() ? stats.io_backend : stats.io.backend},
      {"device", stats.device},
      {"cache", cache_json(report.cache)}};
  // One rendering of the figures (loader/diagnosis/report_json.h), handed to Python through its
  // json module.
  return py::module_::import("json").attr("loads")(figures.dump());
}

py::dict gather_verdicts(const py::dict& report, py::object dist) {
  const py::dict verdict = report["verdict"];
  py::dict mine;
  mine["rank"] = report["rank"];
  mine["world_size"] = report["world_size"];
  mine["images_per_s"] = report["images_per_s"];
  mine["bottleneck"] = verdict["bottleneck"];
  mine["summary"] = verdict["summary"];
  mine["stall_fraction"] = verdict["stall_fraction"];
  mine["advice"] = verdict["advice"];
  if (dist.is_none()) {
    try {
      dist = py::module_::import("torch.distributed");
    } catch (const py::error_already_set&) {
      dist = py::none();  // no torch: this rank alone
    }
  }
  py::list ranks;
  // torch built without distributed support has no is_initialized().
  if (!dist.is_none() && py::hasattr(dist, "is_initialized") &&
      dist.attr("is_initialized")().cast<bool>()) {
    const int world_size = dist.attr("get_world_size")().cast<int>();
    for (int r = 0; r < world_size; ++r) ranks.append(py::none());
    dist.attr("all_gather_object")(ranks, mine);
  } else {
    ranks.append(mine);
  }
  py::dict slowest = ranks[0];
  for (const py::handle entry : ranks) {
    if (entry["images_per_s"].cast<double>() < slowest["images_per_s"].cast<double>()) {
      slowest = py::reinterpret_borrow<py::dict>(entry);
    }
  }
  const py::list advice = slowest["advice"];
  std::string summary = "rank " + py::str(slowest["rank"]).cast<std::string>() + " of " +
                        py::str(slowest["world_size"]).cast<std::string>() + " is the slowest: " +
                        std::to_string(std::lround(slowest["images_per_s"].cast<double>())) +
                        " images/s, bottleneck " + slowest["summary"].cast<std::string>();
  if (!advice.empty()) summary += ": " + advice[0]["text"].cast<std::string>();
  py::dict result;
  result["ranks"] = ranks;
  result["slowest"] = slowest;
  result["summary"] = summary;
  return result;
}

void ProgressLine::update(const Loader& loader, std::uint64_t epoch, std::size_t batches) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < kProgressRedrawInterval) return;
  last_ = now;
  draw(loader, epoch, batches, "");
}

void ProgressLine::finish(const Loader& loader, std::uint64_t epoch, std::size_t batches) {
  draw(loader, epoch, batches, "\n");
  last_ = {};
}

void ProgressLine::draw(const Loader& loader, std::uint64_t epoch, std::size_t batches,
                        const char* end) {
  const Report report = loader.report();
  const std::string line =
      "\rfeedrate " + progress_line(epoch, batches, loader.batches_per_epoch(), "batches", report) +
      "    ";
  py::print(line, py::arg("end") = end, py::arg("file") = py::module_::import("sys").attr("stderr"),
            py::arg("flush") = true);
}

}  // namespace feedrate::python
