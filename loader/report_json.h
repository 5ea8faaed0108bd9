// The run's figures as JSON, one rendering for every front end: the `verdict` and `stages`
// objects of `feedrate bench --json`, `feedrate tune --json` and the Python Loader.report().
// Internal to the build tree (not an installed header). Thread-safety: reentrant.
#pragma once

#include <nlohmann/json.hpp>

#include "loader/report.h"

namespace feedrate {

// {bottleneck, stall_fraction, stalls: {io, cpu, ram, h2d} (seconds), advice: [...]}
nlohmann::json verdict_json(const Verdict& verdict);
// {<stage>: {items, bytes, busy_s, starved_s, blocked_s, threads, utilization}, ...,
//  in_flight: {mean, max, capacity}}
nlohmann::json stages_json(const Report& report);

}  // namespace feedrate
