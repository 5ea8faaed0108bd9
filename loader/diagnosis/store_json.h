// A remote source's store figures (Report::store) as JSON, one rendering for every front end:
// the `store` object beside the stages of `feedrate bench --json` and Loader.report().
// Thread-safety: reentrant.
#pragma once

#include <nlohmann/json.hpp>

#include "feedrate/report.h"

namespace feedrate {

// {scheme, max_in_flight, average_in_flight, peak_in_flight, requests, retries, failed, bytes,
//  first_byte_p50_ms, first_byte_p99_ms, bytes_per_s, bytes_per_s_per_connection, busy_s,
//  by_in_flight: [{in_flight, busy_s, bytes_per_s}, ...]}
nlohmann::json store_json(const StoreFigures& store);

}  // namespace feedrate
