#include "bench/report_output.h"

#include <fmt/core.h>

#include <stdexcept>

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
          {"throttle", c.throttle}};
}

RunCosts costs_from_json(const nlohmann::json& j) {
  auto get = [&]<typename T>(const char* key, T& value) {
    if (!j.contains(key))
      throw std::runtime_error(std::string("costs: missing field \"") + key + "\"");
    try {
      value = j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
      throw std::runtime_error(std::string("costs: field \"") + key + "\" has the wrong type");
    }
  };
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
  return c;
}

}  // namespace feedrate::bench
