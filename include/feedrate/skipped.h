// A sample left out of delivery under the `skip` policies (on_bad, on_missing): which one, where
// it lives and why. Thread-safety: a plain value.
#pragma once

#include <cstdint>
#include <string>

namespace feedrate {

struct SkippedSample {
  std::uint32_t index = 0;  // dataset sample index (0 for a sample left out of the index)
  std::string where;        // file, or shard:member, or shard:key
  std::string reason;
};

}  // namespace feedrate
