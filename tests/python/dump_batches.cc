// Test helper for the Python tests: runs one epoch of the C++ Loader and writes what it
// delivered, so the tests can compare the Python path with the C++ path byte for byte.
//   feedrate-dump-batches SOURCE PREFIX [options]
// writes PREFIX.images (every batch's data() bytes, in order), PREFIX.labels (int32) and
// PREFIX.indices (uint32). Host memory only (device "cpu").
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "feedrate/options.h"

int main(int argc, char** argv) {
  CLI::App app("Dump one epoch of feedrate batches (test helper)");
  feedrate::LoaderOptions options;
  std::string prefix, transform = "train", layout = "uint8";
  std::uint64_t epoch = 0;
  int size = 224, resize = 0;
  bool no_shuffle = false;
  app.add_option("source", options.source)->required();
  app.add_option("prefix", prefix)->required();
  app.add_option("--batch", options.batch_size);
  app.add_option("--workers", options.num_workers);
  app.add_option("--seed", options.seed);
  app.add_option("--epoch", epoch);
  app.add_flag("--no-shuffle", no_shuffle);
  app.add_option("--transform", transform)
      ->check(CLI::Validator(feedrate::transform_problem, "SPEC"));
  app.add_option("--size", size);
  app.add_option("--resize", resize);
  // float16 is refused by the Loader: it needs a CUDA device.
  app.add_option("--layout", layout)->check(CLI::IsMember(feedrate::layout_names()));
  CLI11_PARSE(app, argc, argv);
  options.shuffle = no_shuffle ? feedrate::ShuffleMode::kNone : feedrate::ShuffleMode::kFull;
  options.transform = feedrate::parse_transform(transform, size);
  if (resize > 0) options.transform.resize = resize;
  options.layout = feedrate::parse_layout(layout);
  try {
    feedrate::Loader loader(options);
    std::ofstream images(prefix + ".images", std::ios::binary);
    std::ofstream labels(prefix + ".labels", std::ios::binary);
    std::ofstream indices(prefix + ".indices", std::ios::binary);
    loader.start_epoch(epoch);
    while (std::optional<feedrate::Batch> batch = loader.next()) {
      const std::size_t element =
          options.layout == feedrate::OutputLayout::kFloat32NCHW ? sizeof(float) : 1;
      const std::size_t bytes = batch->size() * 3 * batch->height() * batch->width() * element;
      images.write(static_cast<const char*>(batch->data()), static_cast<std::streamsize>(bytes));
      labels.write(reinterpret_cast<const char*>(batch->labels().data()),
                   static_cast<std::streamsize>(batch->labels().size_bytes()));
      indices.write(reinterpret_cast<const char*>(batch->indices().data()),
                    static_cast<std::streamsize>(batch->indices().size_bytes()));
    }
    if (!images || !labels || !indices) {
      std::cerr << "feedrate-dump-batches: cannot write " << prefix << ".*\n";
      return 1;
    }
  } catch (const feedrate::Error& e) {
    std::cerr << "feedrate-dump-batches: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
