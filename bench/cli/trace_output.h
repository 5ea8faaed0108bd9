// Writes a run's timeline as a Chrome Trace Event Format file (opens in Perfetto or
// chrome://tracing): a track per thread, a span per sample per stage, counter tracks.
// Thread-safety: reentrant.
#pragma once

#include <filesystem>

#include "feedrate/trace.h"

namespace feedrate::bench {

// Throws std::runtime_error naming the file when it cannot be written.
void write_chrome_trace(const std::filesystem::path& path, const TraceRecorder& trace);

}  // namespace feedrate::bench
