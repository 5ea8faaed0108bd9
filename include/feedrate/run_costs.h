// What a run measured per image, and the setting it ran with: the record `feedrate plan` projects
// an instance from (loader/diagnosis/throughput_model.h). Every Report carries one
// (Loader::report(), Python's report()["costs"], `feedrate bench --json` and `tune --json`), so a
// training run's report saved as JSON is a plan input too. Its JSON form is
// loader/diagnosis/report_json.h's. Thread-safety: plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "feedrate/export.h"

namespace feedrate {

// What packing the dataset (`feedrate pack`) would change per image, measured on a sample of the
// dataset's own JPEGs (by `feedrate bench`'s packing probe).
struct PackedDecodeCost {
  // "measured"; "packed" (the dataset's JPEGs are packed already); "skipped" (see reason);
  // "" when the run recorded nothing (an older run, a training run, or --no-pack-probe).
  std::string state;
  std::string reason;                           // skipped: why, in a few words
  std::size_t samples = 0;                      // images decoded both ways (measured), or sampled
  double original_ms = 0, packed_ms = 0;        // CPU per image on one thread, train transform
  double original_bytes = 0, packed_bytes = 0;  // per image, mean
  double seconds = 0;                           // the probe's own wall time

  bool measured() const { return state == "measured" && original_ms > 0 && packed_ms > 0; }
  double decode_ratio() const { return measured() ? packed_ms / original_ms : 1; }
  double bytes_ratio() const {
    return measured() && original_bytes > 0 ? packed_bytes / original_bytes : 1;
  }
};

// What one image costs the loader, as the projections (loader/diagnosis/throughput_model.h)
// take it: measured by a run (loader/diagnosis/capacity.h's image_costs()), carried in its
// RunCosts, and projected from there by the verdict's advice and `feedrate plan`.
struct ImageCosts {
  double cpu_ms_per_image = 0;  // CPU of every loader thread (decode, reads, copies)
  double bytes_per_image = 0;   // encoded bytes read
  double reads_per_image = 0;   // read operations
  // The decode threads' share of cpu_ms; 0: all of it (older runs did not record it).
  double decode_ms_per_image = 0;
  // The share of their wall time the decode threads got a core (decode CPU / decode wall time):
  // below 1 where other threads or processes take the cores; 1 on a machine of its own (and in
  // older runs). It applies to the measuring machine only.
  double cpu_share = 1;
};

// The part of a run's setting its costs depend on: what the run read (the dataset, its format
// and order), how (batch, workers, batches and reads in flight) and on what (the CPUs, the
// emulated disk).
// RunSetting (include/feedrate/report.h) is this plus the process's other facts; RunCosts
// carries this part, so a costs record read back (`feedrate plan`) holds the same facts under
// the same names. Its JSON keys are loader/diagnosis/report_json.h's: `chunk_bytes` is written
// as "tar_chunk_bytes".
struct CostSetting {
  std::size_t batch_size = 1;
  int num_workers = 1;
  // batches in flight at most: prefetch_batches after the memory budget
  std::size_t prefetch_batches = 1;
  int cpus = 1;              // available to the run (affinity and quota)
  unsigned queue_depth = 1;  // reads in flight at most
  std::uint64_t dataset_bytes = 0;
  std::uint64_t dataset_samples = 0;
  std::string throttle;  // the emulated disk as given (--throttle); "" when none
  // The order and storage behind ImageCosts::reads_per_image; runs recorded before these
  // fields read back as a full shuffle of an unknown format (no block reads projected).
  std::string format;                 // "image-folder", "file-list", "tar-shards"; "" unknown
  std::string shuffle = "full";       // the order the run read in: "full", "blocks" or "none"
  std::size_t shuffle_window_mb = 0;  // blocks: the window
  std::uint64_t chunk_bytes = 0;      // what a read in storage order covers (a tar block)

  bool shards() const { return format == "tar-shards"; }
};

struct RunCosts {
  double images_per_s = 0;
  CostSetting setting;  // what the run ran with
  ImageCosts image;
  // What this run's disk delivered per second of reading (the io capacity,
  // loader/diagnosis/capacity.h); 0 when unlimited or not recorded (older runs).
  double disk_images_per_s = 0;
  double h2d_bytes_per_image = 0;  // uint8 pixels, what crosses PCIe to a GPU
  double peak_rss_mb = 0;
  PackedDecodeCost packed;  // state "" when not measured
};

struct Report;

// The costs of a report's run (its figures per delivered image, and its setting).
FEEDRATE_API RunCosts run_costs(const Report& report);

}  // namespace feedrate
