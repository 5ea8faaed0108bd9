#include "loader/diagnosis/diagnose.h"

#include "feedrate/run_costs.h"
#include "loader/diagnosis/capacity.h"
#include "loader/diagnosis/verdict.h"

namespace feedrate {

void diagnose(Report& report) {
  report.capacities = capacities(report);
  report.verdict = judge(report);
  report.costs = run_costs(report);
}

}  // namespace feedrate
