// Renders a Report: the verdict and stage table for people (the JSON objects are
// loader/report_json.h's), and the per-image costs (`costs`) that `feedrate plan`
// reads back from a bench or tune run: what it measured per image, the order and storage its
// reads came from, and what packing would change (bench/pack/transcode_probe.h).
// Thread-safety: reentrant.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "bench/pack/transcode_probe.h"
#include "loader/loader.h"
#include "loader/report.h"
#include "loader/report_json.h"

namespace feedrate::bench {

std::string report_text(const Report& report);

// What a run measured per image, and the setting it ran with: the input of `feedrate plan`.
struct RunCosts {
  double images_per_s = 0;
  int num_workers = 0;
  int cpus = 0;                    // available to the run
  double cpu_ms_per_image = 0;     // decode CPU, summed over the workers
  double bytes_per_image = 0;      // encoded bytes read
  double reads_per_image = 0;      // read operations
  double h2d_bytes_per_image = 0;  // uint8 pixels, what crosses PCIe to a GPU
  std::uint64_t dataset_bytes = 0;
  std::uint64_t dataset_samples = 0;
  double peak_rss_mb = 0;
  std::size_t batch_size = 0;
  std::size_t prefetch = 0;
  unsigned queue_depth = 0;
  std::string throttle;  // the emulated disk, empty when none
  // The order and storage behind reads_per_image; runs recorded before these fields read back
  // as a full shuffle of an unknown format (no block reads projected).
  std::string format;                 // "image-folder", "file-list", "tar-shards"; "" unknown
  std::string shuffle = "full";       // the order the run read in: "full", "blocks" or "none"
  std::size_t shuffle_window_mb = 0;  // blocks: the window
  std::uint64_t tar_chunk_bytes = 0;  // a block (and a storage-order chunk) of tar shards
  PackedDecodeCost packed;            // state "" when not measured
};

RunCosts run_costs(const Loader& loader, double images_per_s, double peak_rss_mb);
nlohmann::json costs_json(const RunCosts& costs);
// Reads the `costs` object back; throws std::runtime_error naming a missing or mistyped field
// (the order, storage and packing fields may be missing: older runs lack them).
RunCosts costs_from_json(const nlohmann::json& costs);

}  // namespace feedrate::bench
