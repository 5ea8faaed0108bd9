#include "loader/host/system_info.h"

#include <sched.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "loader/host/cgroup.h"

namespace feedrate {
namespace {

// A "Key: value kB" line of /proc/meminfo, in bytes; 0 when absent.
std::uint64_t meminfo_bytes(const std::string& wanted) {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == wanted + ":") return kib * 1024;
  }
  return 0;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) break;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

std::uint64_t physical_bytes() {
  return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

CpuInfo cpu_info() {
  CpuInfo info;
  info.model = cpu_model();
  info.online = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  cpu_set_t set;
  CPU_ZERO(&set);
  info.affinity = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : info.online;
  info.quota_cores = cgroup_cpu_quota_cores();
  int cpus = info.affinity;
  if (info.quota_cores > 0) cpus = std::min(cpus, static_cast<int>(std::ceil(info.quota_cores)));
  info.available = std::max(1, cpus);
  return info;
}

MemoryInfo memory_info() {
  MemoryInfo info;
  info.physical_bytes = physical_bytes();
  info.available_bytes = meminfo_bytes("MemAvailable");
  info.swap_total_bytes = meminfo_bytes("SwapTotal");
  info.swap_free_bytes = meminfo_bytes("SwapFree");
  const CgroupMemory cgroup = cgroup_memory_limit();
  info.cgroup_version = cgroup.version;
  info.cgroup_limit_bytes = cgroup.limit_bytes;
  // v1 reports "no limit" as a huge number.
  if (info.cgroup_limit_bytes > info.physical_bytes) info.cgroup_limit_bytes = 0;
  info.limit_bytes = info.cgroup_limit_bytes > 0 ? info.cgroup_limit_bytes : info.physical_bytes;
  return info;
}

std::uint64_t file_system_bytes(const std::filesystem::path& path) {
  struct statvfs fs {};
  if (::statvfs(path.c_str(), &fs) != 0) return 0;
  return static_cast<std::uint64_t>(fs.f_blocks) * fs.f_frsize;
}

int available_cpus() {
  return cpu_info().available;
}

std::uint64_t memory_limit_bytes() {
  return memory_info().limit_bytes;
}

std::uint64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    std::getline(status, key);
  }
  return 0;
}

std::uint64_t thread_cpu_ns() {
  timespec now{};
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(now.tv_nsec);
}

}  // namespace feedrate
