#include "bench/report_output.h"

#include <fmt/core.h>

namespace feedrate::bench {

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

std::string report_text(const Report& report) {
  std::string text = fmt::format("{:<10} {:>9} {:>9} {:>10} {:>10} {:>6}\n", "stage", "items",
                                 "busy s", "starved s", "blocked s", "util");
  for (const StageFigures& s : report.stages) {
    text += fmt::format("{:<10} {:>9} {:>9.2f} {:>10.2f} {:>10.2f} {:>5.0f}%\n", s.name, s.items,
                        s.busy_s, s.starved_s, s.blocked_s, 100 * s.utilization);
  }
  const Verdict& v = report.verdict;
  text += fmt::format(
      "verdict   {} (the consumer waited {:.0f}% of the time: io {:.2f} s, cpu {:.2f} s, "
      "ram {:.2f} s, h2d {:.2f} s)\n",
      v.bottleneck, 100 * v.stall_fraction, v.stall_io_s, v.stall_cpu_s, v.stall_ram_s,
      v.stall_h2d_s);
  for (const std::string& advice : v.advice) text += "  - " + advice + "\n";
  return text;
}

}  // namespace feedrate::bench
