// Where this process's cgroup limits live, and what they are: the one resolver behind the CPU
// quota and the memory limit (loader/host/system_info.h), for cgroup v1, v2 and hybrid hosts.
//
// Resolution: /proc/self/mountinfo names each cgroup hierarchy's mount point and the cgroup it
// exposes there (its root: "/" on a host, often the container's own cgroup inside one);
// /proc/self/cgroup names the process's cgroup per hierarchy ("ID:CONTROLLERS:PATH", v2 as
// "0::PATH"). A controller is taken from the v1 hierarchy that carries it, else from the v2
// hierarchy. The process's directory is the mount point plus PATH relative to the mount's root;
// a limit is the smallest one set on that directory or any ancestor up to the mount point, as
// the kernel enforces nested limits.
//
// Every path is read below `root` ("/" in production), so tests point it at a fake tree.
// Thread-safety: reentrant; everything is read at the time of the call.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace feedrate {

struct CgroupDirs {
  int version = 0;  // 1 or 2; 0 when no hierarchy carries the controller
  // The process's own cgroup directory first, then its ancestors up to the mount point.
  std::vector<std::filesystem::path> dirs;
};

// The cgroup directories of `controller` ("cpu", "memory") for this process.
CgroupDirs cgroup_dirs(const std::string& controller, const std::filesystem::path& root = "/");

// CPU quota in cores (v2 cpu.max "QUOTA PERIOD", v1 cpu.cfs_quota_us / cpu.cfs_period_us);
// 0 when no quota is set ("max", -1) or none can be read.
double cgroup_cpu_quota_cores(const std::filesystem::path& root = "/");

struct CgroupMemory {
  int version = 0;
  std::uint64_t limit_bytes = 0;  // v2 memory.max, v1 memory.limit_in_bytes; 0 when unset
};
CgroupMemory cgroup_memory_limit(const std::filesystem::path& root = "/");

}  // namespace feedrate
