#include "bench/cli/report_output.h"

#include <fmt/core.h>

#include "bench/cli/loader_args.h"
#include "loader/diagnosis/verdict_text.h"

namespace feedrate::bench {

std::string report_text(const Report& report) {
  std::string text = fmt::format("{:<10} {:>9} {:>9} {:>10} {:>10} {:>6}\n", "stage", "items",
                                 "busy s", "starved s", "blocked s", "util");
  for (const StageFigures& s : report.stages) {
    text += fmt::format("{:<10} {:>9} {:>9.2f} {:>10.2f} {:>10.2f} {:>5.0f}%\n", s.name, s.items,
                        s.busy_s, s.starved_s, s.blocked_s, 100 * s.utilization);
  }
  const Verdict& v = report.verdict;
  const RunFigures& f = report.figures;
  text += fmt::format("capacity  {} [images/s each resource alone would sustain]\n",
                      capacities_text(report.capacities, v));
  text += fmt::format(
      "verdict   {}{} (delivered {:.0f} images/s; the consumer waited {:.0f}% of the time: io "
      "{:.2f} s, cpu {:.2f} s, ram {:.2f} s, h2d {:.2f} s)\n",
      verdict_summary(report),
      report.run.world_size > 1
          ? fmt::format(" on rank {} of {}", report.run.rank, report.run.world_size)
          : "",
      report.capacities.delivered, 100 * v.stall_fraction, f.stall_io_s, f.stall_cpu_s,
      f.stall_ram_s, f.stall_h2d_s);
  for (const Advice& advice : v.advice) {
    text += "  - " + advice_text(advice, report.capacities.delivered, flag_spelling) + "\n";
  }
  return text;
}

}  // namespace feedrate::bench
