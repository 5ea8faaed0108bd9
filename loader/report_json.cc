#include "loader/report_json.h"

namespace feedrate {

nlohmann::json verdict_json(const Verdict& verdict) {
  return {{"bottleneck", verdict.bottleneck},
          {"stall_fraction", verdict.stall_fraction},
          {"stalls",
           {{"io", verdict.stall_io_s},
            {"cpu", verdict.stall_cpu_s},
            {"ram", verdict.stall_ram_s},
            {"h2d", verdict.stall_h2d_s}}},
          {"advice", verdict.advice}};
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
  return stages;
}

}  // namespace feedrate
