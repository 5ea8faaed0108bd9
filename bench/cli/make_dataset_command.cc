#include <fmt/core.h>

#include <memory>

#include "bench/cli/commands.h"
#include "bench/datagen/datagen.h"

namespace feedrate::bench {

Command add_make_dataset_command(CLI::App& app) {
  auto spec = std::make_shared<datagen::DatasetSpec>();
  auto format = std::make_shared<std::string>("folder");
  auto path = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "make-dataset",
      "Generate a JPEG dataset with photograph-like content and ImageNet-like sizes "
      "(deterministic by seed)");
  sub->add_option("OUT", *path, "Folder to create (must not exist)")->required();
  sub->add_option("--count", spec->count, "Images")
      ->check(CLI::Range(1, 10'000'000))
      ->capture_default_str();
  sub->add_option("--classes", spec->classes, "Classes")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str();
  sub->add_option("--format", *format, "folder (ImageFolder) or tar (WebDataset shards)")
      ->check(CLI::IsMember({"folder", "tar"}))
      ->capture_default_str();
  sub->add_option("--seed", spec->seed, "Seed")->capture_default_str();
  sub->add_option("--quality", spec->quality, "JPEG quality")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_option("--images-per-shard", spec->images_per_shard, "Images per tar shard")
      ->check(CLI::Range(1, 10'000'000))
      ->capture_default_str();
  sub->add_flag("--class-order", spec->class_order,
                "Consecutive images share a class (image i in class i * classes / count): "
                "shards sorted by class, the hard case for a shuffle");
  sub->add_flag(
      "--mixed-formats", spec->mixed_formats,
      "Cycle through PNG (palette, 16-bit, alpha, interlaced), WebP, BMP, PPM/PGM, TIFF and "
      "JPEG (RGB, CMYK), with upper-case extensions, a PNG named .JPEG and a stray .txt");
  return [spec, format, path] {
    spec->out = *path;
    spec->format = *format == "tar" ? datagen::Format::kTar : datagen::Format::kFolder;
    const datagen::DatasetSummary summary = datagen::make_dataset(*spec);
    fmt::print("{}: {} images in {} classes, {} files, {:.1f} MB\n", *path, summary.images,
               summary.classes, summary.files.size(), summary.bytes / 1e6);
    return 0;
  };
}

}  // namespace feedrate::bench
