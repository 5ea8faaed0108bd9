#include "loader/python/report.h"

#include <pybind11/stl.h>

#include <string>

namespace feedrate::python {
namespace py = pybind11;

namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(500);

py::dict stage_dict(const StageFigures& stage) {
  py::dict d;
  d["items"] = stage.items;
  d["bytes"] = stage.bytes;
  d["busy_s"] = stage.busy_s;
  d["starved_s"] = stage.starved_s;
  d["blocked_s"] = stage.blocked_s;
  d["threads"] = stage.threads;
  d["utilization"] = stage.utilization;
  return d;
}

}  // namespace

py::dict report_dict(const Report& report, const RunStats& stats) {
  py::dict verdict;
  verdict["bottleneck"] = report.verdict.bottleneck;
  verdict["stall_fraction"] = report.verdict.stall_fraction;
  py::dict stalls;
  stalls["io"] = report.verdict.stall_io_s;
  stalls["cpu"] = report.verdict.stall_cpu_s;
  stalls["ram"] = report.verdict.stall_ram_s;
  stalls["h2d"] = report.verdict.stall_h2d_s;
  verdict["stalls_s"] = stalls;
  verdict["advice"] = report.verdict.advice;

  py::dict stages;
  for (const StageFigures& stage : report.stages) stages[py::str(stage.name)] = stage_dict(stage);

  py::list skipped;
  for (const SkippedSample& s : stats.skipped_samples) {
    py::dict d;
    d["index"] = s.index;
    d["where"] = s.where;
    d["reason"] = s.reason;
    skipped.append(d);
  }

  py::dict d;
  d["verdict"] = verdict;
  d["wall_s"] = report.wall_s;
  d["images"] = report.images;
  d["images_per_s"] = report.images_per_s;
  d["mb_per_s"] = report.mb_per_s;
  d["decode_cpu_ms_per_image"] = report.decode_cpu_ms_per_image;
  d["read_bytes_per_image"] = report.read_bytes_per_image;
  d["consumer_ms_per_batch"] = report.consumer_ms_per_batch;
  d["in_flight_mean"] = report.in_flight_mean;
  d["in_flight_max"] = report.in_flight_max;
  d["in_flight_capacity"] = report.in_flight_capacity;
  d["stages"] = stages;
  d["batches"] = stats.batches;
  d["skipped"] = stats.skipped;
  d["skipped_samples"] = skipped;
  d["io_backend"] = stats.io.backend.empty() ? stats.io_backend : stats.io.backend;
  d["device"] = stats.device;
  return d;
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
