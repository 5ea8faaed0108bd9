// Renders a Report for people: the stage table, every resource's capacity and headroom, the
// verdict and its advice (the JSON objects are loader/diagnosis/report_json.h's, and the per-image
// costs `feedrate plan` reads back are include/feedrate/run_costs.h's). Thread-safety: reentrant.
#pragma once

#include <string>

#include "feedrate/report.h"

namespace feedrate::bench {

std::string report_text(const Report& report);

}  // namespace feedrate::bench
