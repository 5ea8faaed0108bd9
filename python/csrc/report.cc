#include "python/csrc/report.h"

#include <cmath>
#include <string>

#include "loader/diagnosis/progress_line.h"
#include "loader/diagnosis/report_document.h"

namespace feedrate::python {
namespace py = pybind11;

std::string keyword_spelling(const OptionSetting& setting) {
  // Python's names are LoaderOptions' but for the layout, which Python calls dtype.
  const std::string keyword = setting.option == "layout" ? "dtype" : setting.option;
  const std::string& value = setting.value;
  const bool number = !value.empty() && value.find_first_not_of("0123456789.") == std::string::npos;
  std::string spelled = keyword + "=";
  if (!number) spelled += '"';
  spelled += value;
  if (!number) spelled += '"';
  return spelled;
}

py::dict report_dict(const Report& report, const RunStats& stats) {
  // The library's document (loader/diagnosis/report_document.h), the one the command line's
  // --json extends, handed to Python through its json module.
  return py::module_::import("json").attr("loads")(
      report_document(report, stats, keyword_spelling));
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
                        " images/s, bottleneck " + slowest["bottleneck"].cast<std::string>();
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
