// A minimal training loop fed by feedrate: iterates epochs and checks every batch it gets.
// Usage: train DATASET [EPOCHS]
#include <feedrate/error.h>
#include <feedrate/loader.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATASET [EPOCHS]\n", argv[0]);
    return 2;
  }
  feedrate::LoaderOptions options;
  options.source = argv[1];
  options.batch_size = 16;
  options.num_workers = 2;
  options.transform.size = 64;
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 2;
  try {
    feedrate::Loader loader(options);
    std::printf("%zu samples, %zu classes\n", loader.dataset().size(),
                loader.dataset().classes().size());
    for (int epoch = 0; epoch < epochs; ++epoch) {
      loader.start_epoch(static_cast<std::uint64_t>(epoch));
      std::size_t images = 0;
      while (std::optional<feedrate::Batch> batch = loader.next()) {
        // A real step would train on batch->images_u8() and batch->labels().
        if (batch->images_u8().size() != batch->size() * 64 * 64 * 3) return 1;
        images += batch->size();
      }
      std::printf("epoch %d: %zu images\n", epoch, images);
      if (images != loader.samples_per_epoch()) return 1;
    }
    std::printf("io backend: %s\n", loader.stats().io_backend.c_str());
  } catch (const feedrate::Error& e) {
    std::fprintf(stderr, "train: %s\n", e.what());
    return 1;
  }
  return 0;
}
