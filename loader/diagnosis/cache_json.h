// The pack cache's figures (Report::cache, include/feedrate/report.h) as JSON, one rendering for
// every front end: the `cache` object of `feedrate bench --json` and of the Python Loader.report().
// Internal to the build tree (not an installed header). Thread-safety: reentrant.
#pragma once

#include <nlohmann/json.hpp>

#include "feedrate/report.h"

namespace feedrate {

// {enabled, folder, samples, dataset_samples, bytes, source_bytes, bytes_ratio, disk_bytes,
//  hits, misses, hit_rate, fallbacks, transcoded, unchanged, written_bytes, cpu_s, declined,
//  allowed_per_s, stopped, warnings}; {"enabled": false} when the cache is off.
nlohmann::json cache_json(const CacheFigures& cache);

}  // namespace feedrate
