// The options of every command that runs the loader (`feedrate bench`, `feedrate tune`): each
// flag declared once with its help text, one conversion to LoaderOptions, and one check that runs
// before anything else does (before the default dataset is generated).
// Thread-safety: plain values; add_loader_options() registers on one CLI11 app.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "feedrate/options.h"
#include "loader/host/system_info.h"

namespace feedrate::bench {

struct LoaderArgs {
  std::string dataset;  // empty: the command's default dataset
  int workers = available_cpus();
  std::size_t batch = 64;
  std::string transform = "train";
  int size = 224;
  std::string on_bad = "error";
  std::string on_missing = "skip";
  std::vector<std::string> fields = {"cls"};  // --fields txt,json; --fields "" for none
  std::string image;
  std::string annotations;  // a detection dataset's annotations; --transform is then its recipe
  std::string labels = "category_id";
  std::string layout = "uint8";
  std::string device = "cpu";
  std::uint64_t seed = 0;
  std::string shuffle = "full";
  bool no_shuffle = false;  // --shuffle none
  std::size_t shuffle_window_mb = LoaderOptions{}.shuffle_window_mb;
  std::size_t prefetch_batches = LoaderOptions{}.prefetch_batches;
  std::size_t memory_budget_mb = 0;
  unsigned queue_depth = LoaderOptions{}.io_queue_depth;
  bool pread = false;
  bool direct = false;
  std::string throttle;
  std::uint64_t tar_chunk_kb = LoaderOptions{}.tar_chunk_bytes >> 10;
  // The pack cache.
  std::string cache_dir;
  double cache_gb = 0;
};

// The options registered, for a command that adds constraints of its own (needs, excludes).
struct LoaderArgOptions {
  CLI::Option* workers = nullptr;
  CLI::Option* shuffle = nullptr;
  CLI::Option* no_shuffle = nullptr;
  CLI::Option* shuffle_window_mb = nullptr;
};

// Registers DATASET and the loader's options on `command`, parsed into `args`.
LoaderArgOptions add_loader_options(CLI::App* command, LoaderArgs* args);

// The loader's options for `args` (source empty when no DATASET was given).
LoaderOptions loader_options(const LoaderArgs& args);

// Throws feedrate::Error for an option the loader would refuse (a throttle, device or layout it
// cannot use, ...), as Loader would, before anything runs.
void check_loader_options(const LoaderOptions& options);

}  // namespace feedrate::bench
