#include "bench/cli/default_dataset.h"

#include <fmt/core.h>

#include <cstdlib>

#include "bench/datagen/datagen.h"

namespace feedrate::bench {

namespace fs = std::filesystem;

fs::path cache_directory() {
  if (const char* dir = std::getenv("FEEDRATE_CACHE"); dir != nullptr && *dir != '\0') return dir;
  if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir != nullptr && *dir != '\0') {
    return fs::path(dir) / "feedrate";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".cache" / "feedrate";
  }
  return fs::temp_directory_path() / "feedrate-cache";
}

fs::path default_dataset() {
  // The name carries the generator's parameters, so changing them never reuses a stale folder.
  const fs::path path = cache_directory() / "default-v1-1000x10-q90";
  if (fs::exists(path)) return path;
  fs::create_directories(path.parent_path());
  fmt::print(stderr, "feedrate: generating the default dataset at {} (first use)...\n",
             path.string());
  datagen::DatasetSpec spec;
  spec.out = path;
  spec.count = 1000;
  spec.classes = 10;
  const datagen::DatasetSummary summary = datagen::make_dataset(spec);
  fmt::print(stderr, "feedrate: {} images, {:.1f} MB\n", summary.images, summary.bytes / 1e6);
  return path;
}

}  // namespace feedrate::bench
