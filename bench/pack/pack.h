// `feedrate pack`: copies any dataset feedrate reads into WebDataset-compatible tar shards of
// packed JPEGs (decode/restart_index.h), in the source's index order: sample i of the source is
// sample i of the packed set (unless --on-bad skip leaves a bad one out; the index lists it).
//
// Output folder OUT:
//   shard-000000.tar, ...  members <key>.<ext> then <key>.cls (label in decimal and "\n"), key =
//                          the source index in 8 digits; ext = jpg for JPEGs, else the format's
//                          own (png, webp, tif, bmp, ppm, pgm): other formats are stored unchanged
//   index.json             what was packed (docs/pack-index.md, version 2): options, shards
//                          (name, first sample, samples, bytes, and each member's name, data
//                          offset, size and label, so that a loader indexes the shards without
//                          reading them, above all from a store), skipped samples, per-sample
//                          original sizes with --max-side, totals
// A shard is written as name.tar.tmp and renamed when complete, and index.json last, so an
// interrupted pack leaves no shard that a reader takes for complete (readers take *.tar only).
// Running again restarts: it removes the shards, *.tar.tmp and index.json of an earlier pack.
//
// Thread-safety: pack_dataset() runs its own workers; call it from one thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "decode/restart_index.h"

namespace feedrate::bench {

struct PackOptions {
  std::string source;
  std::filesystem::path out;
  int shard_mb = 256;
  int max_side = 0;  // 0: lossless; else resample JPEGs whose longer side is above it
  int quality = 90;  // of a re-encode under max_side
  int restart_mcus = decode::kTargetMcusPerInterval;  // K aimed for (choose_mcus_per_interval)
  int workers = 0;                                    // 0: one per available CPU
  bool skip_bad = false;  // else the first bad sample stops the pack with its error
};

struct PackSummary {
  std::uint64_t samples = 0;    // written
  std::uint64_t lossless = 0;   // JPEGs transcoded losslessly
  std::uint64_t resized = 0;    // JPEGs resampled under max_side
  std::uint64_t unchanged = 0;  // stored as they were: other formats, JPEGs libjpeg warns on
  std::uint64_t skipped = 0;
  std::uint64_t shards = 0;
  std::uint64_t source_bytes = 0;  // the samples' bytes in the source
  std::uint64_t image_bytes = 0;   // the packed samples' bytes
  std::uint64_t shard_bytes = 0;   // the shards' bytes on disk (tar headers and padding)
};

// Called after each batch of samples with (done, total).
using PackProgress = std::function<void(std::uint64_t, std::uint64_t)>;

// Throws feedrate::Error naming the sample ("path" or "shard.tar:member") and the problem on a
// bad sample without skip_bad, on a read or write error, or when OUT holds other files.
PackSummary pack_dataset(const PackOptions& options, const PackProgress& progress = {});

}  // namespace feedrate::bench
