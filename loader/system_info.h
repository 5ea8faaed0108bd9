// What this process may use of the machine: CPUs (affinity and CFS quota) and memory (the
// container's limit, not just the host's RAM). Thread-safety: reentrant.
#pragma once

#include <cstdint>

namespace feedrate {

// CPUs available to this process: its affinity mask, reduced by a cgroup CPU quota; >= 1.
int available_cpus();
// The memory this process may use: the cgroup (v2 memory.max or v1 limit) when set, else the
// physical RAM. 0 when unknown.
std::uint64_t memory_limit_bytes();

}  // namespace feedrate
