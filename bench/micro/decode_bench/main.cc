// feedrate-decode-bench: decode/ alone, one thread, against libjpeg-turbo's own benchmark and
// against the naive train path, side by side in one run, on the same images:
//   1. Full decode: ImageDecoder::decode_full (whole image to packed RGB, accurate integer
//      IDCT, fancy upsampling) against `tjbench FILE -rgb -accuratedct -nowrite` (TurboJPEG's
//      tjDecompress2 of the same file to RGB, with the same IDCT and upsampling, nothing
//      written). Each image is timed alone, in memory, for --seconds after --warmup, by both;
//      images/s over the set is the harmonic mean (the images, each decoded once). Target >= 0.95.
//   2. Train path: ImageDecoder::decode with RandomResizedCrop(224) + RandomHorizontalFlip (ROI
//      decode, DCT scaling, resample, flip) against the naive path on the same crops: decode_full,
//      then the same resampler over the crop box. The two take turns crop by crop, each timed
//      on its own. Target >= 1.25.
//   2b. Packed train path: the same decode() on `feedrate pack`'s lossless form of each image
//      (restart intervals and their index, decode/restart_index.h) against the original files,
//      same crops, taking turns; with the share of entropy-coded bytes the crops skip. No target
//      of its own (the pack targets are end to end, README "Packed shards").
//   3. End to end: `feedrate bench DIR --transform train --workers C --json` (C = the CPUs
//      available) against the full-decode ceiling, tjbench's images/s per core times C,
//      measured as C tjbench processes running at once on each image (so that the ceiling
//      sees the same machine as the run). Target >= 0.85.
//   4. DCT scale costs: whole-image decodes through libjpeg at every scaling factor M/8, against
//      8/8, on the same images. The decoder takes the smallest of decode::kDctScaleDenominators
//      that keeps enough pixels; the bench says whether that is still the cheapest such factor.
// Every measurement runs --repeats times; contenders take turns, in reverse order on every
// other repeat, and medians are compared.
//
// The parts: settings.h, images.h, timing.h (how contenders are timed), commands.h (tjbench
// and the other programs), decode_paths.h (1, 2, 2b), end_to_end.h (3), scale_costs.h (4),
// report.h.
//
// Usage: feedrate-decode-bench [--dir DATASET] [--images N] [--seconds S] [--warmup S]
//                              [--repeats N] [--tjbench PATH] [--feedrate PATH] [--workers C]
//                              [--restart-mcus K] [--no-end-to-end] [--json]
#include <cstdio>
// jpeglib.h needs size_t and FILE declared first.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/cli/default_dataset.h"
#include "bench/micro/decode_bench/commands.h"
#include "bench/micro/decode_bench/decode_paths.h"
#include "bench/micro/decode_bench/end_to_end.h"
#include "bench/micro/decode_bench/images.h"
#include "bench/micro/decode_bench/report.h"
#include "bench/micro/decode_bench/scale_costs.h"
#include "bench/micro/decode_bench/settings.h"
#include "bench/micro/decode_bench/timing.h"
#include "loader/host/system_info.h"

namespace feedrate::decode_bench {
namespace {

namespace fs = std::filesystem;

int run(const Args& args) {
  const fs::path dir = args.dir.empty() ? bench::default_dataset() : fs::path(args.dir);
  const std::vector<Image> images = load_images(dir, args.images, args.restart_mcus);
  const CpuInfo cpu = cpu_info();
  const int workers = args.workers > 0 ? args.workers : cpu.available;
  std::string feedrate = args.feedrate;
  if (feedrate.empty())
    feedrate = (fs::read_symlink("/proc/self/exe").parent_path() / "feedrate").string();
  nlohmann::ordered_json env = environment(args, dir, images, cpu);
  if (!args.json) print_heading(env);

  std::vector<Row> rows;
  rows.push_back(full_decode(images, args.tjbench, args));
  double scaled_share = 0;
  rows.push_back(train_path(images, args, &scaled_share));
  rows.back().note =
      fmt::format("{:.0f}% of the crops decoded with DCT scaling", scaled_share * 100);
  double read_share = 1;
  rows.push_back(packed_train_path(images, args, &read_share));
  std::uint64_t original_bytes = 0, packed_bytes = 0;
  for (const Image& image : images) {
    original_bytes += image.bytes.size();
    packed_bytes += image.packed.size();
  }
  rows.back().note = fmt::format(
      "{:.1f}% of the entropy-coded bytes skipped per crop; packed files {:.3f}x the originals",
      (1 - read_share) * 100, static_cast<double>(packed_bytes) / original_bytes);
  if (!args.no_end_to_end) {
    rows.push_back(end_to_end(dir, images, args.tjbench, feedrate, workers, args));
    rows.back().note = fmt::format(
        "ceiling = {} tjbench processes at once; one alone gave {:.1f} images/s above, x {} = "
        "{:.1f}",
        workers, rows[0].reference_median(), workers, rows[0].reference_median() * workers);
  }
  const std::vector<ScaleCost> scales = scale_costs(images, args);
  env["load_average_after"] = load_average();
  if (args.json) {
    print_json(env, rows, scales);
  } else {
    print_text(env, rows, scales, images[0]);
  }
  return 0;
}

}  // namespace
}  // namespace feedrate::decode_bench

int main(int argc, char** argv) {
  feedrate::decode_bench::Args args;
  CLI::App app{
      "feedrate-decode-bench: feedrate's JPEG decode against tjbench and its train path against "
      "full decode + resize, one thread, on the same images"};
  app.add_option("--dir", args.dir, "Dataset folder (default: the generated default dataset)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--images", args.images, "JPEGs taken from the dataset, evenly spaced")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  app.add_option("--seconds", args.seconds, "Timed seconds per image per contender")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 60.0));
  app.add_option("--warmup", args.warmup, "Untimed seconds before each timed run")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60.0));
  app.add_option("--repeats", args.repeats, "Runs of each contender; the median is quoted")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--tjbench", args.tjbench, "tjbench (Debian package libjpeg-turbo-progs)")
      ->capture_default_str();
  app.add_option("--feedrate", args.feedrate,
                 "The feedrate command for the end-to-end run (default: beside this program)");
  app.add_option("--workers", args.workers, "Workers end to end (default: the CPUs available)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--epochs", args.end_to_end_epochs, "Epochs of each end-to-end run")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--restart-mcus", args.restart_mcus,
                 "MCUs per restart interval aimed for in the packed forms (as feedrate pack)")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  app.add_flag("--no-end-to-end", args.no_end_to_end, "Skip the feedrate bench run");
  app.add_flag("--json", args.json, "Print one JSON object instead of text");
  CLI11_PARSE(app, argc, argv);
  try {
    return feedrate::decode_bench::run(args);
  } catch (const std::exception& e) {
    fmt::print(stderr, "feedrate-decode-bench: {}\n", e.what());
    return 1;
  }
}
