// The embedded default dataset: `feedrate bench` with no DATASET runs on 1,000 generated
// ImageNet-like JPEGs in 10 classes, written once to a cache folder and reused.
// Thread-safety: not for concurrent first use from two processes (the generator renames its
// finished folder into place, so a loser of that race fails with a clear error, and reruns).
#pragma once

#include <filesystem>

namespace feedrate::bench {

// $FEEDRATE_CACHE, else $XDG_CACHE_HOME/feedrate, else ~/.cache/feedrate.
std::filesystem::path cache_directory();
// Returns the default dataset's folder, generating it first when it is missing.
std::filesystem::path default_dataset();

}  // namespace feedrate::bench
