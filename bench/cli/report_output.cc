#include "bench/cli/report_output.h"

#include <fmt/core.h>

#include <stdexcept>
#include <type_traits>

#include "loader/system_info.h"

namespace feedrate::bench {

std::string report_text(const Report& report) {
  std::string text = fmt::format("{:<10} {:>9} {:>9} {:>10} {:>10} {:>6}\n", "stage", "items",
                                 "busy s", "starved s", "blocked s", "util");
  for (const StageFigures& s : report.stages) {
    text += fmt::format("{:<10} {:>9} {:>9.2f} {:>10.2f} {:>10.2f} {:>5.0f}%\n", s.name, s.items,
                        s.busy_s, s.starved_s, s.blocked_s, 100 * s.utilization);
  }
  const Verdict& v = report.verdict;
  text += fmt::format(
      "verdict   {}{} (the consumer waited {:.0f}% of the time: io {:.2f} s, cpu {:.2f} s, "
      "ram {:.2f} s, h2d {:.2f} s)\n",
      v.bottleneck,
      report.world_size > 1 ? fmt::format(" on rank {} of {}", report.rank, report.world_size) : "",
      100 * v.stall_fraction, v.stall_io_s, v.stall_cpu_s, v.stall_ram_s, v.stall_h2d_s);
  for (const std::string& advice : v.advice) text += "  - " + advice + "\n";
  return text;
}

namespace {

nlohmann::json packed_json(const PackedDecodeCost& p) {
  return {{"state", p.state},
          {"reason", p.reason},
          {"samples", p.samples},
          {"original_ms", p.original_ms},
          {"packed_ms", p.packed_ms},
          {"original_bytes", p.original_bytes},
          {"packed_bytes", p.packed_bytes},
          {"seconds", p.seconds},
          {"decode_ratio", p.decode_ratio()},
          {"bytes_ratio", p.bytes_ratio()}};
}

}  // namespace

RunCosts run_costs(const Loader& loader, double images_per_s, double peak_rss_mb) {
  const RunStats stats = loader.stats();
  const Report report = loader.report();
  const LoaderOptions& options = loader.options();
  const double images = static_cast<double>(std::max<std::uint64_t>(stats.images, 1));
  RunCosts costs;
  costs.images_per_s = images_per_s;
  costs.num_workers = options.num_workers;
  costs.cpus = available_cpus();
  costs.cpu_ms_per_image = report.decode_cpu_ms_per_image;
  costs.bytes_per_image = stats.bytes_read / images;
  costs.reads_per_image = stats.read_operations / images;
  costs.h2d_bytes_per_image = 3.0 * options.transform.size * options.transform.size;
  costs.dataset_bytes = loader.dataset().total_bytes();
  costs.dataset_samples = loader.dataset().size();
  costs.peak_rss_mb = peak_rss_mb;
  costs.batch_size = options.batch_size;
  costs.prefetch = options.prefetch_batches;
  costs.queue_depth = options.io_queue_depth;
  costs.throttle = options.throttle;
  costs.format = format_name(loader.dataset().format());
  costs.shuffle = shuffle_name(options.shuffle);
  costs.shuffle_window_mb = options.shuffle_window_mb;
  costs.tar_chunk_bytes = options.tar_chunk_bytes;
  return costs;
}

nlohmann::json costs_json(const RunCosts& c) {
  return {{"images_per_s", c.images_per_s},
          {"num_workers", c.num_workers},
          {"cpus", c.cpus},
          {"cpu_ms_per_image", c.cpu_ms_per_image},
          {"bytes_per_image", c.bytes_per_image},
          {"reads_per_image", c.reads_per_image},
          {"h2d_bytes_per_image", c.h2d_bytes_per_image},
          {"dataset_bytes", c.dataset_bytes},
          {"dataset_samples", c.dataset_samples},
          {"peak_rss_mb", c.peak_rss_mb},
          {"batch_size", c.batch_size},
          {"prefetch", c.prefetch},
          {"queue_depth", c.queue_depth},
          {"throttle", c.throttle},
          {"format", c.format},
          {"shuffle", c.shuffle},
          {"shuffle_window_mb", c.shuffle_window_mb},
          {"tar_chunk_bytes", c.tar_chunk_bytes},
          {"packed", packed_json(c.packed)}};
}

RunCosts costs_from_json(const nlohmann::json& j) {
  auto read = [](const nlohmann::json& object, const std::string& where, const char* key,
                 auto& value, bool required) {
    if (!object.contains(key)) {
      if (!required) return;
      throw std::runtime_error(where + ": missing field \"" + key + "\"");
    }
    try {
      value = object.at(key).get<std::remove_reference_t<decltype(value)>>();
    } catch (const nlohmann::json::exception&) {
      throw std::runtime_error(where + ": field \"" + key + "\" has the wrong type");
    }
  };
  auto get = [&](const char* key, auto& value) { read(j, "costs", key, value, true); };
  auto optional = [&](const char* key, auto& value) { read(j, "costs", key, value, false); };
  RunCosts c;
  get("images_per_s", c.images_per_s);
  get("num_workers", c.num_workers);
  get("cpus", c.cpus);
  get("cpu_ms_per_image", c.cpu_ms_per_image);
  get("bytes_per_image", c.bytes_per_image);
  get("reads_per_image", c.reads_per_image);
  get("h2d_bytes_per_image", c.h2d_bytes_per_image);
  get("dataset_bytes", c.dataset_bytes);
  get("dataset_samples", c.dataset_samples);
  get("peak_rss_mb", c.peak_rss_mb);
  get("batch_size", c.batch_size);
  get("prefetch", c.prefetch);
  get("queue_depth", c.queue_depth);
  get("throttle", c.throttle);
  optional("format", c.format);
  optional("shuffle", c.shuffle);
  optional("shuffle_window_mb", c.shuffle_window_mb);
  optional("tar_chunk_bytes", c.tar_chunk_bytes);
  if (c.shuffle != "full" && c.shuffle != "blocks" && c.shuffle != "none") {
    throw std::runtime_error("costs: field \"shuffle\" is \"" + c.shuffle +
                             "\", not full, blocks or none");
  }
  if (j.contains("packed")) {
    const nlohmann::json& p = j.at("packed");
    if (!p.is_object()) throw std::runtime_error("costs: field \"packed\" is not an object");
    auto packed = [&](const char* key, auto& value) { read(p, "costs.packed", key, value, true); };
    packed("state", c.packed.state);
    packed("reason", c.packed.reason);
    packed("samples", c.packed.samples);
    packed("original_ms", c.packed.original_ms);
    packed("packed_ms", c.packed.packed_ms);
    packed("original_bytes", c.packed.original_bytes);
    packed("packed_bytes", c.packed.packed_bytes);
  }
  return c;
}

}  // namespace feedrate::bench
