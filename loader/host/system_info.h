// What this process may use of the machine: CPUs (affinity and CFS quota) and memory (the
// container's limit, not just the host's RAM), plus the figures `feedrate doctor` prints (CPU
// model, swap, /dev/shm). Everything is read from /proc, /sys and sysconf at the time of the
// call; a figure that cannot be read is left at zero (or empty). Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace feedrate {

struct CpuInfo {
  std::string model;       // /proc/cpuinfo "model name", empty when absent
  int online = 0;          // CPUs online on the host
  int affinity = 0;        // CPUs in this process's affinity mask (cpuset)
  double quota_cores = 0;  // cgroup CFS quota / period; 0 when there is no quota
  int available = 1;       // min(affinity, ceil(quota)), >= 1
};

struct MemoryInfo {
  std::uint64_t physical_bytes = 0;
  std::uint64_t available_bytes = 0;     // MemAvailable: what can be used without swapping
  int cgroup_version = 0;                // 1 or 2 when a cgroup memory controller is mounted
  std::uint64_t cgroup_limit_bytes = 0;  // 0 when the cgroup sets no limit (or none is mounted)
  std::uint64_t limit_bytes = 0;         // the cgroup limit when set, else physical RAM
  std::uint64_t swap_total_bytes = 0, swap_free_bytes = 0;
};

CpuInfo cpu_info();
MemoryInfo memory_info();
// Size of the file system holding `path` (for /dev/shm: what shared memory may hold); 0 when
// it cannot be queried.
std::uint64_t file_system_bytes(const std::filesystem::path& path);

// CPUs available to this process: its affinity mask, reduced by a cgroup CPU quota; >= 1.
int available_cpus();
// The memory this process may use: the cgroup (v2 memory.max or v1 limit) when set, else the
// physical RAM. 0 when unknown.
std::uint64_t memory_limit_bytes();

// This process's peak resident set size (VmHWM) in bytes; 0 when /proc is unavailable.
std::uint64_t peak_rss_bytes();
// CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID), in nanoseconds.
std::uint64_t thread_cpu_ns();

}  // namespace feedrate
