// The report as one JSON document: the part every front end shares, built once in the library
// over the renderers of the verdict, capacities, stages, costs, skipped samples and cache.
// `feedrate bench --json` and `feedrate tune --json` add the command line's own fields to it (the
// dataset as opened, the transform as given, per-epoch figures, the shuffle's quality); Python's
// Loader.report() returns it as a dict. Neither renames nor rebuilds a field of it. Its keys
// (docs/verdict.md):
//   rank, world_size, device, format, dataset_samples, dataset_bytes, num_workers, batch_size,
//   training_images_per_s, wall_s, images, batches, images_per_s, mb_per_s, bytes_read,
//   decode_cpu_ms_per_image, read_bytes_per_image, consumer_ms_per_batch, peak_rss_mb,
//   skipped, skipped_samples, io {backend, fallback_reason, throttle, latency_p50_us,
//   latency_p99_us, average_in_flight, peak_in_flight, direct_io_fallbacks, notes, operations},
//   verdict, capacities, stages, costs, cache.
// A front-end header: the keys are the contract; the document is JSON text (UTF-8, one object,
// numbers that are not finite written as null), so that each front end reads it with its own
// JSON library and this header needs none.
// Errors: the functions that read throw std::runtime_error naming what is wrong.
// Thread-safety: reentrant.
#pragma once

#include <string>
#include <string_view>

#include "feedrate/loader.h"
#include "feedrate/report.h"
#include "feedrate/run_costs.h"
#include "loader/diagnosis/verdict_text.h"

namespace feedrate {

// The document. `spell` writes the options the advice sets (loader/diagnosis/verdict_text.h), as
// the front end that asks takes them.
std::string report_document(const Report& report, const RunStats& stats, OptionSpelling spell);

// Diagnoses a report whose figures were gathered elsewhere (feedrate.ray judges its parts' by it)
// with the library's one diagnosis (loader/diagnosis/diagnose.h), and renders what the document
// would say of them: {"verdict": ..., "capacities": ...}.
std::string diagnosis_document(Report report, OptionSpelling spell);

// The document's `costs` object alone (include/feedrate/run_costs.h): what `feedrate tune`
// records for each point it measured and `feedrate plan` reads back.
std::string costs_document(const RunCosts& costs);
// Reads a `costs` object back from its JSON text; throws std::runtime_error for text that is not
// a JSON object ("costs: not an object") and naming a missing or mistyped field (the order,
// storage, decode share and packing fields may be missing: older runs lack them).
RunCosts costs_from_document(std::string_view text);

}  // namespace feedrate
