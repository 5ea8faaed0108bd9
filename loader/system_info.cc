#include "loader/system_info.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

namespace feedrate {
namespace {

// cgroup v2 "cpu.max" ("max 100000" or "200000 100000"), or v1 cfs_quota_us / cfs_period_us.
double cpu_quota() {
  std::ifstream v2("/sys/fs/cgroup/cpu.max");
  std::string quota;
  double period = 0;
  if (v2 >> quota >> period && quota != "max" && period > 0) return std::stod(quota) / period;
  std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  double v1_quota = 0, v1_period = 0;
  if (q >> v1_quota && p >> v1_period && v1_quota > 0 && v1_period > 0) return v1_quota / v1_period;
  return 0;
}

std::uint64_t read_limit(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return 0;
  try {
    return std::stoull(text);
  } catch (...) {
    return 0;
  }
}

}  // namespace

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = sched_getaffinity(0, sizeof(set), &set) == 0
                 ? CPU_COUNT(&set)
                 : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (const double quota = cpu_quota(); quota > 0) {
    cpus = std::min(cpus, static_cast<int>(std::ceil(quota)));
  }
  return std::max(1, cpus);
}

std::uint64_t memory_limit_bytes() {
  const auto physical = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                        static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  std::uint64_t limit = read_limit("/sys/fs/cgroup/memory.max");
  if (limit == 0) limit = read_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  // v1 reports "no limit" as a huge number.
  if (limit == 0 || limit > physical) return physical;
  return limit;
}

}  // namespace feedrate
