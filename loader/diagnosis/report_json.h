// The run's figures as JSON, one rendering for every front end: the `verdict`, `capacities`,
// `stages` and `costs` objects of `feedrate bench --json`, `feedrate tune --json` and the Python
// Loader.report(); and the `costs` object read back by `feedrate plan`.
// Internal to the build tree (not an installed header). Thread-safety: reentrant.
#pragma once

#include <nlohmann/json.hpp>

#include "feedrate/report.h"
#include "feedrate/run_costs.h"
#include "loader/diagnosis/verdict_text.h"

namespace feedrate {

// {bottleneck, runner_up, summary, reached, stall_fraction, stalls: {io, cpu, ram, h2d}
//  (seconds), advice: [{kind, cause, remedy, settings: [{option, value}], projected_images_per_s,
//  cost, text}]}, the remedy and text with the settings as `spell` writes them.
nlohmann::json verdict_json(const Report& report, OptionSpelling spell);
// {delivered, <resource>: {measured, images_per_s, headroom, binds, basis}} (images_per_s and
// headroom null when unlimited or not measured)
nlohmann::json capacities_json(const Report& report);
// {<stage>: {items, bytes, busy_s, starved_s, blocked_s, threads, utilization}, ...,
//  in_flight: {mean, max, capacity}, store: {...} for a remote source (store_json.h)}
nlohmann::json stages_json(const Report& report);

// The `costs` object (include/feedrate/run_costs.h).
nlohmann::json costs_json(const RunCosts& costs);
// Reads the `costs` object back; throws std::runtime_error naming a missing or mistyped field
// (the order, storage, decode share and packing fields may be missing: older runs lack them;
// older runs wrote prefetch_batches as "prefetch", which reads the same).
RunCosts costs_from_json(const nlohmann::json& costs);

}  // namespace feedrate
