#include "bench/cli/report_output.h"

#include <fmt/core.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "loader/diagnosis/verdict_text.h"

namespace feedrate::bench {

std::string flag_spelling(const OptionSetting& setting) {
  // The flags bench/cli/loader_args.cc registers, by the LoaderOptions field each sets.
  static const std::map<std::string, std::string, std::less<>> flags = {
      {"batch_size", "--batch"},
      {"cache_dir", "--cache-dir"},
      {"io_queue_depth", "--queue-depth"},
      {"layout", "--layout"},
      {"memory_budget_mb", "--memory-budget-mb"},
      {"num_workers", "--workers"},
      {"prefetch_batches", "--prefetch-batches"},
      {"shuffle", "--shuffle"},
      {"shuffle_window_mb", "--shuffle-window-mb"},
      {"throttle", "--throttle"}};
  const auto flag = flags.find(setting.option);
  if (flag == flags.end()) {
    throw std::invalid_argument("no command-line flag for option " + setting.option);
  }
  return flag->second + " " + setting.value;
}

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
