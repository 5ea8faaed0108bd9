// The one diagnosis of a run (internal to loader/): from a report whose figures are complete
// (the telemetry's, then the cache's and the store's, attached by whoever owns them), computes
// the capacities (capacity.h), the verdict and its advice (verdict.h) and the run's costs
// (include/feedrate/run_costs.h), in that order, once. Nothing else fills those three fields of
// a Report, so no figure can arrive after the verdict that should have read it.
// Thread-safety: reentrant.
#pragma once

#include "feedrate/report.h"

namespace feedrate {

// Fills report.capacities, report.verdict and report.costs from the rest of `report`.
void diagnose(Report& report);

}  // namespace feedrate
