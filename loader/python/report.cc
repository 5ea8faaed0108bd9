#include "loader/python/report.h"

#include <nlohmann/json.hpp>
#include <string>

#include "loader/report_json.h"

namespace feedrate::python {
namespace py = pybind11;

namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(500);

}  // namespace

py::dict report_dict(const Report& report, const RunStats& stats) {
  nlohmann::json skipped = nlohmann::json::array();
  for (const SkippedSample& s : stats.skipped_samples) {
    skipped.push_back({{"index", s.index}, {"where", s.where}, {"reason", s.reason}});
  }
  const nlohmann::json figures = {
      {"verdict", verdict_json(report.verdict)},
      {"stages", stages_json(report)},
      {"wall_s", report.wall_s},
      {"images", report.images},
      {"images_per_s", report.images_per_s},
      {"mb_per_s", report.mb_per_s},
      {"decode_cpu_ms_per_image", report.decode_cpu_ms_per_image},
      {"read_bytes_per_image", report.read_bytes_per_image},
      {"consumer_ms_per_batch", report.consumer_ms_per_batch},
      {"batches", stats.batches},
      {"skipped", stats.skipped},
      {"skipped_samples", skipped},
      {"io_backend", stats.io.backend.empty() ? stats.io_backend : stats.io.backend},
      {"device", stats.device}};
  // One rendering of the figures (loader/report_json.h), handed to Python through its json module.
  return py::module_::import("json").attr("loads")(figures.dump());
}

void ProgressLine::update(const Loader& loader, std::uint64_t epoch, std::size_t batches) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < kRedrawInterval) return;
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
  const std::string line = "\rfeedrate epoch " + std::to_string(epoch) + ": " +
                           std::to_string(batches) + "/" +
                           std::to_string(loader.batches_per_epoch()) + " batches, " +
                           std::to_string(static_cast<long>(report.images_per_s)) +
                           " images/s, bottleneck " + report.verdict.bottleneck + "    ";
  py::print(line, py::arg("end") = end, py::arg("file") = py::module_::import("sys").attr("stderr"),
            py::arg("flush") = true);
}

}  // namespace feedrate::python
