#include "loader/diagnosis/report_json.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "feedrate/resource.h"
#include "loader/diagnosis/store_json.h"
#include "loader/diagnosis/verdict_text.h"

namespace feedrate {
namespace {

// JSON has no infinity: an unlimited rate is null.
nlohmann::json rate(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

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

nlohmann::json verdict_json(const Report& report, OptionSpelling spell) {
  const Verdict& v = report.verdict;
  nlohmann::json advice = nlohmann::json::array();
  for (const Advice& a : v.advice) {
    nlohmann::json settings = nlohmann::json::array();
    for (const OptionSetting& s : a.settings) {
      settings.push_back({{"option", s.option}, {"value", s.value}});
    }
    advice.push_back({{"kind", a.kind},
                      {"cause", a.cause},
                      {"remedy", remedy_text(a, spell)},
                      {"settings", settings},
                      {"projected_images_per_s", rate(a.projected_images_per_s)},
                      {"cost", a.cost},
                      {"text", advice_text(a, report.capacities.delivered, spell)}});
  }
  const RunFigures& f = report.figures;
  return {{"bottleneck", resource_name(v.bottleneck, "none")},
          {"runner_up", resource_name(v.runner_up, "")},
          {"summary", verdict_summary(report)},
          {"reached", v.reached},
          {"stall_fraction", v.stall_fraction},
          {"stalls",
           {{resource_name(Resource::kIo), f.stall_io_s},
            {resource_name(Resource::kCpu), f.stall_cpu_s},
            {resource_name(Resource::kRam), f.stall_ram_s},
            {resource_name(Resource::kH2d), f.stall_h2d_s}}},
          {"advice", advice}};
}

nlohmann::json capacities_json(const Report& report) {
  const Capacities& c = report.capacities;
  nlohmann::json out = {{"delivered", c.delivered}};
  for (const Capacity& capacity : c.resources) {
    out[resource_name(capacity.resource)] = {
        {"measured", capacity.measured},
        {"images_per_s", capacity.measured ? rate(capacity.images_per_s) : nullptr},
        {"headroom", capacity.measured ? rate(capacity.headroom) : nullptr},
        {"binds", capacity.resource == report.verdict.bottleneck},
        {"basis", capacity.basis}};
  }
  return out;
}

nlohmann::json stages_json(const Report& report) {
  nlohmann::json stages = nlohmann::json::object();
  for (const StageFigures& s : report.stages) {
    stages[s.name] = {{"items", s.items},
                      {"bytes", s.bytes},
                      {"busy_s", s.busy_s},
                      {"starved_s", s.starved_s},
                      {"blocked_s", s.blocked_s},
                      {"threads", s.threads},
                      {"utilization", s.utilization}};
  }
  stages["in_flight"] = {{"mean", report.in_flight_mean},
                         {"max", report.in_flight_max},
                         {"capacity", report.in_flight_capacity}};
  if (report.store.remote) stages["store"] = store_json(report.store);
  return stages;
}

nlohmann::json costs_json(const RunCosts& c) {
  return {{"images_per_s", c.images_per_s},
          {"num_workers", c.setting.num_workers},
          {"cpus", c.setting.cpus},
          {"cpu_ms_per_image", c.image.cpu_ms_per_image},
          {"decode_ms_per_image", c.image.decode_ms_per_image},
          {"cpu_share", c.image.cpu_share},
          {"bytes_per_image", c.image.bytes_per_image},
          {"reads_per_image", c.image.reads_per_image},
          {"disk_images_per_s", c.disk_images_per_s},
          {"h2d_bytes_per_image", c.h2d_bytes_per_image},
          {"dataset_bytes", c.setting.dataset_bytes},
          {"dataset_samples", c.setting.dataset_samples},
          {"peak_rss_mb", c.peak_rss_mb},
          {"batch_size", c.setting.batch_size},
          {"prefetch", c.setting.slots},
          {"queue_depth", c.image.queue_depth},
          {"throttle", c.setting.throttle},
          {"format", c.setting.format},
          {"shuffle", c.setting.shuffle},
          {"shuffle_window_mb", c.setting.shuffle_window_mb},
          {"tar_chunk_bytes", c.setting.chunk_bytes},
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
  if (!j.is_object()) throw std::runtime_error("costs: not an object");
  auto get = [&](const char* key, auto& value) { read(j, "costs", key, value, true); };
  auto optional = [&](const char* key, auto& value) { read(j, "costs", key, value, false); };
  RunCosts c;
  get("images_per_s", c.images_per_s);
  get("num_workers", c.setting.num_workers);
  get("cpus", c.setting.cpus);
  get("cpu_ms_per_image", c.image.cpu_ms_per_image);
  optional("decode_ms_per_image", c.image.decode_ms_per_image);
  optional("cpu_share", c.image.cpu_share);
  get("bytes_per_image", c.image.bytes_per_image);
  get("reads_per_image", c.image.reads_per_image);
  optional("disk_images_per_s", c.disk_images_per_s);
  get("h2d_bytes_per_image", c.h2d_bytes_per_image);
  get("dataset_bytes", c.setting.dataset_bytes);
  get("dataset_samples", c.setting.dataset_samples);
  get("peak_rss_mb", c.peak_rss_mb);
  get("batch_size", c.setting.batch_size);
  get("prefetch", c.setting.slots);
  get("queue_depth", c.image.queue_depth);
  get("throttle", c.setting.throttle);
  optional("format", c.setting.format);
  optional("shuffle", c.setting.shuffle);
  optional("shuffle_window_mb", c.setting.shuffle_window_mb);
  optional("tar_chunk_bytes", c.setting.chunk_bytes);
  const std::string& shuffle = c.setting.shuffle;
  if (shuffle != "full" && shuffle != "blocks" && shuffle != "none") {
    throw std::runtime_error("costs: field \"shuffle\" is \"" + shuffle +
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

}  // namespace feedrate
