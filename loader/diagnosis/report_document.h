// The report as one JSON document: the part every front end shares, built once here over the
// renderers of loader/diagnosis/report_json.h (verdict, capacities, stages, costs),
// loader/diagnosis/skipped_json.h and loader/diagnosis/cache_json.h. `feedrate bench --json` and
// `feedrate tune --json` add the command line's own fields to it (the dataset as opened, the
// transform as given, per-epoch figures, the shuffle's quality); Python's Loader.report() returns
// it as a dict. Neither renames nor rebuilds a field of it. Its keys (docs/verdict.md):
//   rank, world_size, device, format, dataset_samples, dataset_bytes, num_workers, batch_size,
//   training_images_per_s, wall_s, images, batches, images_per_s, mb_per_s, bytes_read,
//   decode_cpu_ms_per_image, read_bytes_per_image, consumer_ms_per_batch, peak_rss_mb,
//   skipped, skipped_samples, io {backend, fallback_reason, throttle, latency_p50_us,
//   latency_p99_us, average_in_flight, peak_in_flight, direct_io_fallbacks, notes, operations},
//   verdict, capacities, stages, costs, cache.
// Internal to the build tree (not an installed header). Thread-safety: reentrant.
#pragma once

#include <nlohmann/json.hpp>

#include "feedrate/loader.h"
#include "feedrate/report.h"
#include "loader/diagnosis/verdict_text.h"

namespace feedrate {

// `spell` writes the options the advice sets (loader/diagnosis/verdict_text.h), as the front end
// that asks takes them.
nlohmann::json report_document(const Report& report, const RunStats& stats, OptionSpelling spell);

}  // namespace feedrate
