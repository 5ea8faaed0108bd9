// Renders a Report for people: the stage table, every resource's capacity and headroom, the
// verdict and its advice with the options it sets spelled as this command line's flags (the JSON
// objects are loader/diagnosis/report_json.h's, and the per-image costs `feedrate plan` reads back
// are include/feedrate/run_costs.h's). Thread-safety: reentrant.
#pragma once

#include <string>

#include "feedrate/report.h"

namespace feedrate::bench {

// An option an advice sets (include/feedrate/report.h's OptionSetting) as this command line's
// flag: {"shuffle", "blocks"} is "--shuffle blocks", {"num_workers", "8"} "--workers 8". Throws
// std::invalid_argument for an option without a flag here.
std::string flag_spelling(const OptionSetting& setting);

// The stage table, the capacities, the verdict and its advice (options spelled as flags).
std::string report_text(const Report& report);

}  // namespace feedrate::bench
