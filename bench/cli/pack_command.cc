#include <fmt/core.h>

#include <memory>

#include "bench/cli/commands.h"
#include "bench/cli/progress.h"
#include "bench/pack/pack.h"

namespace feedrate::bench {

Command add_pack_command(CLI::App& app) {
  auto options = std::make_shared<PackOptions>();
  auto out = std::make_shared<std::string>();
  auto on_bad = std::make_shared<std::string>("error");
  CLI::App* sub = app.add_subcommand(
      "pack",
      "Write a dataset as WebDataset tar shards of packed JPEGs (lossless, with restart markers "
      "and an index, so that a crop decodes only its part), in the source's order");
  sub->add_option("SOURCE", options->source, "Any dataset feedrate reads")->required();
  sub->add_option("OUT", *out, "Folder for the shards and index.json (new, or an earlier pack's)")
      ->required();
  sub->add_option("--shard-mb", options->shard_mb, "Shard size limit in MB (2^20 bytes)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--max-side", options->max_side,
                  "Resample JPEGs whose longer side is above N to N and re-encode them "
                  "(changes the data; 0: lossless)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  sub->add_option("--quality", options->quality, "JPEG quality of a re-encode under --max-side")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_option("--restart-mcus", options->restart_mcus,
                  "MCUs per restart interval aimed for (a divisor of each image's MCU columns "
                  "near it is used, else one interval per MCU row; larger where an image would "
                  "have more than 32,000 intervals)")
      ->check(CLI::Range(1, 65535))
      ->capture_default_str();
  sub->add_option("--workers", options->workers, "Threads (0: one per CPU)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  sub->add_option("--on-bad", *on_bad, "A source file that does not decode: stop, or leave it out")
      ->check(CLI::IsMember({"error", "skip"}))
      ->capture_default_str();
  return [options, out, on_bad] {
    options->out = *out;
    options->skip_bad = *on_bad == "skip";
    Progress bar;
    const PackSummary summary =
        pack_dataset(*options, [&](std::uint64_t done, std::uint64_t total) {
          if (bar.due()) bar.show(fmt::format("  pack {}/{}", done, total));
        });
    bar.clear();
    fmt::print(
        "{}: {} samples in {} shards ({} lossless, {} resampled, {} unchanged, {} skipped), "
        "{:.1f} MB from {:.1f} MB ({:.3f}x; shards with tar headers {:.1f} MB)\n",
        *out, summary.samples, summary.shards, summary.lossless, summary.resized, summary.unchanged,
        summary.skipped, summary.image_bytes / 1e6, summary.source_bytes / 1e6,
        summary.source_bytes > 0 ? static_cast<double>(summary.image_bytes) / summary.source_bytes
                                 : 0.0,
        summary.shard_bytes / 1e6);
    return 0;
  };
}

}  // namespace feedrate::bench
