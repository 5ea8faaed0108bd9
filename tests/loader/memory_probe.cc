// loader_memory_probe SOURCE NUM_WORKERS PREFETCH_BATCHES BATCH SIZE BUDGET_MB EPOCHS
// Runs a Loader over SOURCE in this fresh process and prints one line:
//   prefetch_batches=<prefetch_batches after the budget> baseline_kb=<RSS before the Loader>
//   peak_kb=<peak RSS>
// The peak is the kernel's high-water mark (VmHWM), reset to the current RSS just before the
// Loader is built (writing 5 to /proc/self/clear_refs), so peak - baseline is what the Loader
// added at its worst, whatever the process held before. Used by memory_budget_test.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "feedrate/loader.h"

namespace {

long status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::strtol(line.c_str() + prefix.size(), nullptr, 10);
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: %s SOURCE WORKERS PREFETCH_BATCHES BATCH SIZE BUDGET_MB EPOCHS\n",
                 argv[0]);
    return 2;
  }
  feedrate::LoaderOptions options;
  options.source = argv[1];
  options.num_workers = std::atoi(argv[2]);
  options.prefetch_batches = std::strtoul(argv[3], nullptr, 10);
  options.batch_size = std::strtoul(argv[4], nullptr, 10);
  options.transform.size = std::atoi(argv[5]);
  options.memory_budget_mb = std::strtoul(argv[6], nullptr, 10);
  const long epochs = std::atol(argv[7]);
  options.rank = 0;
  options.world_size = 1;
  {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    if (!clear) {
      std::perror("/proc/self/clear_refs");
      return 1;
    }
  }
  const long baseline = status_kb("VmRSS");
  try {
    feedrate::Loader loader(options);
    for (long epoch = 0; epoch < epochs; ++epoch) {
      loader.start_epoch(static_cast<std::uint64_t>(epoch));
      while (std::optional<feedrate::Batch> batch = loader.next()) {
      }
    }
    std::printf("prefetch_batches=%zu baseline_kb=%ld peak_kb=%ld\n",
                loader.options().prefetch_batches, baseline, status_kb("VmHWM"));
  } catch (const std::exception& e) {
    std::printf("error=%s\n", e.what());
    return 1;
  }
  return 0;
}
