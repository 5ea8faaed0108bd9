// What this process may use of the machine, as `feedrate doctor` and the memory budget read it.
#include "loader/host/system_info.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace feedrate {
namespace {

TEST(SystemInfo, CpusAreConsistent) {
  const CpuInfo cpu = cpu_info();
  EXPECT_GE(cpu.online, 1);
  EXPECT_GE(cpu.affinity, 1);
  EXPECT_LE(cpu.affinity, cpu.online);
  EXPECT_GE(cpu.available, 1);
  EXPECT_LE(cpu.available, cpu.affinity);
  if (cpu.quota_cores > 0) {
    EXPECT_LE(cpu.available, static_cast<int>(cpu.quota_cores) + 1);
  }
  EXPECT_EQ(available_cpus(), cpu.available);
}

TEST(SystemInfo, MemoryLimitIsTheCgroupLimitOrPhysicalRam) {
  const MemoryInfo memory = memory_info();
  EXPECT_GT(memory.physical_bytes, 0u);
  EXPECT_GT(memory.available_bytes, 0u);
  EXPECT_LE(memory.available_bytes, memory.physical_bytes);
  EXPECT_LE(memory.swap_free_bytes, memory.swap_total_bytes);
  EXPECT_LE(memory.cgroup_limit_bytes, memory.physical_bytes);
  EXPECT_EQ(memory.limit_bytes,
            memory.cgroup_limit_bytes > 0 ? memory.cgroup_limit_bytes : memory.physical_bytes);
  EXPECT_EQ(memory_limit_bytes(), memory.limit_bytes);
}

TEST(SystemInfo, FileSystemSize) {
  EXPECT_GT(file_system_bytes("/"), 0u);
  EXPECT_EQ(file_system_bytes("/nonexistent/feedrate"), 0u);
}

}  // namespace
}  // namespace feedrate
