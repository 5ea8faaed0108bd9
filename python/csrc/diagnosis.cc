#include "python/csrc/diagnosis.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "loader/diagnosis/report_document.h"
#include "python/csrc/report.h"

namespace feedrate {

// Every field of each struct, under its C++ name; one left out of a JSON object keeps the value
// of a default-constructed struct.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(
    RunSetting, batch_size, num_workers, prefetch_batches, cpus, queue_depth, dataset_bytes,
    dataset_samples, throttle, format, shuffle, shuffle_window_mb, chunk_bytes, slot_bytes,
    image_size, training_images_per_s, host_cpus, cpu_quota_cores, memory_bytes, container_limit,
    rank, world_size, io_backend, io_fallback_reason, device)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RunFigures, batches, bytes_read, read_operations,
                                                read_busy_s, read_blocked_s, decode_busy_s,
                                                decode_cpu_s, loader_cpu_s, assemble_busy_s,
                                                copy_busy_s, copy_bytes, copy_blocked_s,
                                                consumer_busy_s, stall_io_s, stall_cpu_s,
                                                stall_ram_s, stall_h2d_s, peak_rss_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StoreBand, in_flight, busy_s, bytes_per_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StoreFigures, remote, scheme, max_in_flight,
                                                average_in_flight, peak_in_flight, requests,
                                                retries, failed, bytes, first_byte_p50_ms,
                                                first_byte_p99_ms, bytes_per_s,
                                                bytes_per_s_per_connection, busy_s, by_in_flight)

namespace python {
namespace py = pybind11;
using nlohmann::json;

namespace {

json document(const Report& r) {
  return {{"run", r.run},
          {"wall_s", r.wall_s},
          {"images", r.images},
          {"consumer_ms_per_batch", r.consumer_ms_per_batch},
          {"figures", r.figures},
          {"store", r.store},
          {"cache_enabled", r.cache.enabled}};
}

// Throws a ValueError naming the first key of `given` that `known` lacks, `where` its path.
void check_keys(const json& given, const json& known, const std::string& where) {
  if (!given.is_object()) throw py::value_error(where + " is not a dict");
  for (const auto& [key, value] : given.items()) {
    if (!known.contains(key)) throw py::value_error("unknown figure " + where + "." + key);
  }
}

Report report_of(const json& given) {
  const Report defaults;
  const json known = document(defaults);
  check_keys(given, known, "figures");
  for (const char* part : {"run", "figures", "store"}) {
    if (given.contains(part)) check_keys(given[part], known[part], part);
  }
  if (given.contains("store") && given["store"].contains("by_in_flight")) {
    for (const json& band : given["store"]["by_in_flight"]) {
      check_keys(band, json(StoreBand{}), "store.by_in_flight[]");
    }
  }
  Report r;
  try {
    r.run = given.value("run", RunSetting{});
    r.wall_s = given.value("wall_s", 0.0);
    r.images = given.value("images", std::uint64_t{0});
    r.consumer_ms_per_batch = given.value("consumer_ms_per_batch", 0.0);
    r.figures = given.value("figures", RunFigures{});
    r.store = given.value("store", StoreFigures{});
    r.cache.enabled = given.value("cache_enabled", false);
  } catch (const json::exception& e) {
    throw py::value_error(std::string("figures of the wrong type: ") + e.what());
  }
  return r;
}

py::object to_python(const json& value) {
  return py::module_::import("json").attr("loads")(value.dump());
}

}  // namespace

py::dict figures_of(const Report& report) {
  return to_python(document(report));
}

py::dict judge_figures(const py::dict& figures) {
  const std::string text = py::module_::import("json").attr("dumps")(figures).cast<std::string>();
  json given;
  try {
    given = json::parse(text);
  } catch (const json::exception& e) {  // NaN or infinity, which JSON has no words for
    throw py::value_error(std::string("figures that are no JSON: ") + e.what());
  }
  Report report = report_of(given);
  // The library's one diagnosis, as Loader.report() runs it, rendered as its document is.
  return to_python(json::parse(diagnosis_document(std::move(report), keyword_spelling)));
}

}  // namespace python
}  // namespace feedrate
