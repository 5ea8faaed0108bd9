// The cgroup resolver on fake trees: /proc/self/cgroup and /proc/self/mountinfo as a host or a
// container shows them, and the limit files, all under a temporary root.
#include "loader/host/cgroup.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

// A cgroup v2 host: one hierarchy at /sys/fs/cgroup, the process in `path`.
class CgroupV2 : public ::testing::Test {
 protected:
  void SetUp() override {
    write(dir_ / "proc/self/mountinfo",
          "22 28 0:21 / /proc rw,nosuid - proc proc rw\n"
          "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev shared:4 - cgroup2 cgroup2 "
          "rw,nsdelegate\n");
    write(dir_ / "proc/self/cgroup", "0::/user.slice/job.scope\n");
  }
  fs::path cg(const std::string& relative) const { return dir_ / "sys/fs/cgroup" / relative; }
  testing::TempDir dir_;
};

TEST_F(CgroupV2, ResolvesTheOwnCgroupAndItsAncestors) {
  const CgroupDirs dirs = cgroup_dirs("cpu", dir_.path());
  EXPECT_EQ(dirs.version, 2);
  ASSERT_EQ(dirs.dirs.size(), 3u);
  EXPECT_EQ(dirs.dirs[0], cg("user.slice/job.scope"));
  EXPECT_EQ(dirs.dirs[1], cg("user.slice"));
  EXPECT_EQ(dirs.dirs[2], dir_.path() / "sys/fs/cgroup");
}

TEST_F(CgroupV2, QuotaInTheOwnCgroup) {
  write(cg("cpu.max"), "max 100000\n");
  write(cg("user.slice/job.scope/cpu.max"), "250000 100000\n");
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota_cores(dir_.path()), 2.5);
}

TEST_F(CgroupV2, TheSmallestQuotaOfTheNestedCgroupsHolds) {
  write(cg("user.slice/cpu.max"), "50000 100000\n");  // half a core, one level up
  write(cg("user.slice/job.scope/cpu.max"), "400000 100000\n");
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota_cores(dir_.path()), 0.5);
}

TEST_F(CgroupV2, MaxMeansNoQuota) {
  write(cg("user.slice/job.scope/cpu.max"), "max 100000\n");
  EXPECT_EQ(cgroup_cpu_quota_cores(dir_.path()), 0);
}

TEST_F(CgroupV2, MemoryLimitOfTheOwnCgroup) {
  write(cg("user.slice/job.scope/memory.max"), "400000000\n");
  write(cg("user.slice/memory.max"), "max\n");
  const CgroupMemory memory = cgroup_memory_limit(dir_.path());
  EXPECT_EQ(memory.version, 2);
  EXPECT_EQ(memory.limit_bytes, 400'000'000u);
}

TEST(CgroupV2Container, AMountShowingTheContainersCgroupAsItsRoot) {
  testing::TempDir dir;
  // The container's cgroup is mounted as /sys/fs/cgroup; /proc/self/cgroup still names the full
  // path (no cgroup namespace), so only the part below the mount's root is appended.
  write(dir / "proc/self/mountinfo",
        "40 30 0:26 /kubepods/pod1/ctr /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
  write(dir / "proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
  write(dir / "sys/fs/cgroup/cpu.max", "150000 100000\n");
  const CgroupDirs dirs = cgroup_dirs("cpu", dir.path());
  ASSERT_EQ(dirs.dirs.size(), 1u);
  EXPECT_EQ(dirs.dirs[0], dir.path() / "sys/fs/cgroup");
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota_cores(dir.path()), 1.5);
}

// A v1 (hybrid) host like Debian's older systemd: one hierarchy per controller, cgroup2 unified.
class CgroupV1 : public ::testing::Test {
 protected:
  void SetUp() override {
    write(dir_ / "proc/self/mountinfo",
          "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
          "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
          "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
          "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
    write(dir_ / "proc/self/cgroup",
          "4:memory:/process_api/job7\n"
          "2:cpu,cpuacct:/docker/abc\n"
          "0::/\n");
  }
  testing::TempDir dir_;
};

TEST_F(CgroupV1, CpuQuotaBelowOneCore) {
  const fs::path own = dir_ / "sys/fs/cgroup/cpu,cpuacct/docker/abc";
  write(own / "cpu.cfs_quota_us", "50000\n");
  write(own / "cpu.cfs_period_us", "100000\n");
  write(dir_ / "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  write(dir_ / "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  const CgroupDirs dirs = cgroup_dirs("cpu", dir_.path());
  EXPECT_EQ(dirs.version, 1);
  ASSERT_EQ(dirs.dirs.size(), 3u);
  EXPECT_EQ(dirs.dirs[0], own);
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota_cores(dir_.path()), 0.5);
}

TEST_F(CgroupV1, MinusOneMeansNoQuota) {
  const fs::path own = dir_ / "sys/fs/cgroup/cpu,cpuacct/docker/abc";
  write(own / "cpu.cfs_quota_us", "-1\n");
  write(own / "cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(cgroup_cpu_quota_cores(dir_.path()), 0);
}

TEST_F(CgroupV1, MemoryLimitOfTheOwnCgroupNotTheRoot) {
  write(dir_ / "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  write(dir_ / "sys/fs/cgroup/memory/process_api/job7/memory.limit_in_bytes", "429496729600\n");
  const CgroupMemory memory = cgroup_memory_limit(dir_.path());
  EXPECT_EQ(memory.version, 1);
  EXPECT_EQ(memory.limit_bytes, 429'496'729'600u);
}

TEST(CgroupNone, NoCgroupMountedMeansNoLimits) {
  testing::TempDir dir;
  write(dir / "proc/self/mountinfo", "22 28 0:21 / /proc rw - proc proc rw\n");
  write(dir / "proc/self/cgroup", "0::/\n");
  EXPECT_EQ(cgroup_dirs("cpu", dir.path()).version, 0);
  EXPECT_EQ(cgroup_cpu_quota_cores(dir.path()), 0);
  EXPECT_EQ(cgroup_memory_limit(dir.path()).limit_bytes, 0u);
}

}  // namespace
}  // namespace feedrate
