#include "loader/diagnosis/report_json.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>

#include "feedrate/resource.h"
#include "loader/diagnosis/store_json.h"
#include "loader/diagnosis/verdict_text.h"

namespace feedrate {
namespace {

// JSON has no infinity: an unlimited rate is null.
nlohmann::json rate(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

// Whether a record may lack a field: those that runs recorded before them lack.
enum class Field { kRequired, kOptional };

// Every field of the `costs` object once, with its key: `visit(key, member, Field)` for each
// (Costs: RunCosts or const RunCosts). The packing figures are an object of their own, and
// records of runs without the packing probe have none.
template <class Costs, class Visit>
void costs_fields(Costs& c, Visit&& visit) {
  constexpr Field kRequired = Field::kRequired, kOptional = Field::kOptional;
  visit("images_per_s", c.images_per_s, kRequired);
  visit("num_workers", c.setting.num_workers, kRequired);
  visit("cpus", c.setting.cpus, kRequired);
  visit("cpu_ms_per_image", c.image.cpu_ms_per_image, kRequired);
  visit("decode_ms_per_image", c.image.decode_ms_per_image, kOptional);
  visit("cpu_share", c.image.cpu_share, kOptional);
  visit("bytes_per_image", c.image.bytes_per_image, kRequired);
  visit("reads_per_image", c.image.reads_per_image, kRequired);
  visit("disk_images_per_s", c.disk_images_per_s, kOptional);
  visit("h2d_bytes_per_image", c.h2d_bytes_per_image, kRequired);
  visit("dataset_bytes", c.setting.dataset_bytes, kRequired);
  visit("dataset_samples", c.setting.dataset_samples, kRequired);
  visit("peak_rss_mb", c.peak_rss_mb, kRequired);
  visit("batch_size", c.setting.batch_size, kRequired);
  visit("prefetch_batches", c.setting.prefetch_batches, kRequired);
  visit("queue_depth", c.setting.queue_depth, kRequired);
  visit("throttle", c.setting.throttle, kRequired);
  visit("format", c.setting.format, kOptional);
  visit("shuffle", c.setting.shuffle, kOptional);
  visit("shuffle_window_mb", c.setting.shuffle_window_mb, kOptional);
  visit("tar_chunk_bytes", c.setting.chunk_bytes, kOptional);
}

// The `packed` object's measured fields (it also carries the ratios derived from them).
template <class Packed, class Visit>
void packed_fields(Packed& p, Visit&& visit) {
  visit("state", p.state, Field::kRequired);
  visit("reason", p.reason, Field::kRequired);
  visit("samples", p.samples, Field::kRequired);
  visit("original_ms", p.original_ms, Field::kRequired);
  visit("packed_ms", p.packed_ms, Field::kRequired);
  visit("original_bytes", p.original_bytes, Field::kRequired);
  visit("packed_bytes", p.packed_bytes, Field::kRequired);
  visit("seconds", p.seconds, Field::kOptional);
}

// The key a field was written under before it was renamed, which records of older runs carry
// instead; nullptr when it never had another.
const char* former_key(std::string_view key) {
  return key == "prefetch_batches" ? "prefetch" : nullptr;
}

// Reads `key` of `object` (or its former key) into `value`; throws naming `where` and the key
// when it is missing (and required) or of the wrong type.
template <class T>
void read_field(const nlohmann::json& object, const std::string& where, const char* key, T& value,
                Field field) {
  const char* former = former_key(key);
  const char* found = !object.contains(key) && former && object.contains(former) ? former : key;
  if (!object.contains(found)) {
    if (field == Field::kOptional) return;
    throw std::runtime_error(where + ": missing field \"" + key + "\"");
  }
  try {
    value = object.at(found).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(where + ": field \"" + found + "\" has the wrong type");
  }
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
  nlohmann::json out;
  costs_fields(c, [&](const char* key, const auto& value, Field) { out[key] = value; });
  nlohmann::json& packed = out["packed"];
  packed_fields(c.packed, [&](const char* key, const auto& value, Field) { packed[key] = value; });
  packed["decode_ratio"] = c.packed.decode_ratio();
  packed["bytes_ratio"] = c.packed.bytes_ratio();
  return out;
}

RunCosts costs_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("costs: not an object");
  RunCosts c;
  costs_fields(c, [&](const char* key, auto& value, Field field) {
    read_field(j, "costs", key, value, field);
  });
  const std::string& shuffle = c.setting.shuffle;
  if (shuffle != "full" && shuffle != "blocks" && shuffle != "none") {
    throw std::runtime_error("costs: field \"shuffle\" is \"" + shuffle +
                             "\", not full, blocks or none");
  }
  if (j.contains("packed")) {
    const nlohmann::json& p = j.at("packed");
    if (!p.is_object()) throw std::runtime_error("costs: field \"packed\" is not an object");
    packed_fields(c.packed, [&](const char* key, auto& value, Field field) {
      read_field(p, "costs.packed", key, value, field);
    });
  }
  return c;
}

}  // namespace feedrate
