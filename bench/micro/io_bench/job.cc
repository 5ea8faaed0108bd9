#include "bench/micro/io_bench/job.h"

#include <fmt/core.h>

namespace feedrate::io_bench {

std::string describe(const Job& job) {
  const std::string block = job.block % kMiB == 0 ? fmt::format("{} MiB", job.block / kMiB)
                                                  : fmt::format("{} KiB", job.block / kKiB);
  return fmt::format("{} {} {}, qd {}", job.direct ? "O_DIRECT" : "buffered warm",
                     job.pattern == Pattern::kRandom ? "random" : "sequential", block, job.depth);
}

}  // namespace feedrate::io_bench
