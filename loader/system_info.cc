#include "loader/system_info.h"

#include <sched.h>
#include <sys/statvfs.h>
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

// This process's cgroup path for a v1 controller ("memory"), or the v2 path ("" controller),
// from /proc/self/cgroup lines "ID:CONTROLLERS:PATH"; "/" when absent.
std::string cgroup_path(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const bool match =
        controller.empty()
            ? line.compare(0, first, "0") == 0 && controllers.empty()
            : ("," + controllers + ",").find("," + controller + ",") != std::string::npos;
    if (match) return line.substr(second + 1);
  }
  return "/";
}

// The limit in the process's own cgroup when the hierarchy shows it (a container usually sees
// its cgroup as the root), else at the mount's root.
std::uint64_t cgroup_limit(const std::string& mount, const std::string& own, const char* file) {
  if (own != "/") {
    if (const std::uint64_t limit = read_limit((mount + own + "/" + file).c_str())) return limit;
  }
  return read_limit((mount + "/" + file).c_str());
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
  info.quota_cores = cpu_quota();
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
  if (std::ifstream("/sys/fs/cgroup/cgroup.controllers")) {
    info.cgroup_version = 2;
    info.cgroup_limit_bytes = cgroup_limit("/sys/fs/cgroup", cgroup_path(""), "memory.max");
  } else if (std::ifstream("/sys/fs/cgroup/memory/memory.limit_in_bytes")) {
    info.cgroup_version = 1;
    info.cgroup_limit_bytes =
        cgroup_limit("/sys/fs/cgroup/memory", cgroup_path("memory"), "memory.limit_in_bytes");
  }
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

}  // namespace feedrate
