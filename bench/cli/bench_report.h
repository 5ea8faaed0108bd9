// What `feedrate bench` measured (bench/cli/bench_command.cc runs the epochs and fills it), and
// its renderings: text for people and one JSON object. The verdict, the stage table and the costs
// are rendered by loader/diagnosis/report_json.h and bench/cli/report_output.h.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/cli/report_output.h"
#include "feedrate/dataset.h"
#include "feedrate/loader.h"
#include "feedrate/report.h"
#include "loader/diagnosis/packing_probe.h"
#include "loader/diagnosis/shuffle_quality.h"

namespace feedrate::bench {

// The dataset as the run opened it.
struct BenchDataset {
  std::string source;
  DatasetFormat format = DatasetFormat::kImageFolder;
  std::size_t samples = 0, classes = 0;
  std::uint64_t bytes = 0;
  std::size_t ignored_files = 0;
  std::vector<std::string> ignored_examples;
};

struct EpochFigures {
  std::uint64_t images = 0;
  std::uint64_t bytes_read = 0;  // a dataset that cannot stay in page cache reads it every epoch
  double seconds = 0;
  // --cache-dir: samples read from the cache, entries written and the writer's CPU in the
  // epoch; samples cached at its end.
  std::uint64_t cache_hits = 0, cache_written = 0, cache_samples = 0;
  double cache_cpu_s = 0;
};

struct BenchResult {
  BenchDataset dataset;
  LoaderOptions options;  // as the loader resolved them
  std::string transform;  // as given: train or eval
  bool cold = false;      // the page cache was dropped first
  std::vector<EpochFigures> epochs;
  RunStats stats;
  Report report;           // its wall time, rates and peak RSS are the run's
  ShuffleQuality quality;  // of epoch 0's order (the packing probe's figures: report.costs.packed)
};

// The lines printed before the run: the dataset, and the files left out of it.
std::string dataset_text(const BenchDataset& dataset);
// Everything after the run: figures, shuffle, memory, I/O, skipped samples, then the report.
std::string bench_text(const BenchResult& result);
nlohmann::json bench_json(const BenchResult& result);

}  // namespace feedrate::bench
