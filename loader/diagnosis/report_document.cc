#include "loader/diagnosis/report_document.h"

#include <nlohmann/json.hpp>

#include "loader/diagnosis/cache_json.h"
#include "loader/diagnosis/diagnose.h"
#include "loader/diagnosis/report_json.h"
#include "loader/diagnosis/skipped_json.h"

namespace feedrate {
namespace {

nlohmann::json document(const Report& report, const RunStats& stats, OptionSpelling spell) {
  const RunSetting& run = report.run;
  const IoStats& io = stats.io;
  return {{"rank", run.rank},
          {"world_size", run.world_size},
          {"device", stats.device},
          {"format", run.format},
          {"dataset_samples", run.dataset_samples},
          {"dataset_bytes", run.dataset_bytes},
          {"num_workers", run.num_workers},
          {"batch_size", run.batch_size},
          {"training_images_per_s", run.training_images_per_s},
          {"wall_s", report.wall_s},
          {"images", report.images},
          {"batches", stats.batches},
          {"images_per_s", report.images_per_s},
          {"mb_per_s", report.mb_per_s},
          {"bytes_read", stats.bytes_read},
          {"decode_cpu_ms_per_image", report.costs.image.decode_ms_per_image},
          {"read_bytes_per_image", report.costs.image.bytes_per_image},
          {"consumer_ms_per_batch", report.consumer_ms_per_batch},
          {"peak_rss_mb", static_cast<double>(report.figures.peak_rss_bytes) / 1e6},
          {"skipped", stats.skipped},
          {"skipped_samples", skipped_json(stats.skipped_samples)},
          {"io",
           {// The reader's full description ("io_uring+fixed-buffers"), else its backend.
            {"backend", io.backend.empty() ? stats.io_backend : io.backend},
            {"fallback_reason", stats.io_fallback_reason},
            {"throttle", io.throttle},
            {"latency_p50_us", io.latency_p50_us},
            {"latency_p99_us", io.latency_p99_us},
            {"average_in_flight", io.average_in_flight},
            {"peak_in_flight", io.peak_in_flight},
            {"direct_io_fallbacks", io.direct_io_fallbacks},
            {"notes", io.notes},
            {"operations", stats.read_operations}}},
          {"verdict", verdict_json(report, spell)},
          {"capacities", capacities_json(report)},
          {"stages", stages_json(report)},
          {"costs", costs_json(report.costs)},
          {"cache", cache_json(report.cache)}};
}

}  // namespace

std::string report_document(const Report& report, const RunStats& stats, OptionSpelling spell) {
  return document(report, stats, spell).dump();
}

std::string diagnosis_document(Report report, OptionSpelling spell) {
  diagnose(report);
  return nlohmann::json{{"verdict", verdict_json(report, spell)},
                        {"capacities", capacities_json(report)}}
      .dump();
}

std::string costs_document(const RunCosts& costs) {
  return costs_json(costs).dump();
}

RunCosts costs_from_document(std::string_view text) {
  // Text that is not JSON parses to a discarded value, which costs_from_json() rejects as not an
  // object.
  return costs_from_json(nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false));
}

}  // namespace feedrate
