// The instance probes `feedrate doctor` uses: the block device under a path, io_uring and
// fixed-buffer permission, the disk measurement, and disk classes.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "io/block_device.h"
#include "io/disk_class.h"
#include "io/disk_probe.h"
#include "io/throttle.h"
#include "io/uring_probe.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

TEST(BlockDevice, FindsTheMountOfAPath) {
  testing::TempDir dir;
  const BlockDevice device = block_device_of(dir.path());
  EXPECT_FALSE(device.mount_point.empty());
  EXPECT_EQ(dir.path().string().rfind(device.mount_point == "/" ? "/" : device.mount_point, 0), 0u);
  EXPECT_FALSE(device.fs_type.empty());
  if (!device.device.empty()) {
    EXPECT_TRUE(device.rotational == 0 || device.rotational == 1);
  }
  // /proc has no block device.
  const BlockDevice proc = block_device_of("/proc/self");
  EXPECT_EQ(proc.fs_type, "proc");
  EXPECT_TRUE(proc.device.empty());
  EXPECT_EQ(proc.rotational, -1);
}

TEST(UringProbe, ReportsWhyWhenUnavailable) {
  const UringProbe probe = probe_io_uring();
  EXPECT_GT(probe.memlock_limit_bytes, 0u);
  if (!probe.available) {
    EXPECT_FALSE(probe.error.empty());
    EXPECT_FALSE(probe.fixed_buffers);
  } else if (!probe.fixed_buffers) {
    EXPECT_FALSE(probe.fixed_buffers_error.empty());
  }
}

TEST(DiskProbe, MeasuresAndRemovesItsFile) {
  testing::TempDir dir;
  DiskProbeOptions options;
  options.file_bytes = 4 << 20;
  options.seconds_per_test = 0.1;
  const DiskProbe probe = probe_disk(dir.path(), options);
  EXPECT_GT(probe.sequential_mb_per_s, 0);
  EXPECT_GT(probe.random_iops, 0);
  EXPECT_FALSE(probe.backend.empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  EXPECT_THROW(probe_disk(dir / "missing", options), std::system_error);
}

TEST(DiskClass, MatchesDomainFigures) {
  EXPECT_EQ(match_disk_class(150).name, "hdd");
  EXPECT_EQ(match_disk_class(499).name, "hdd");
  EXPECT_EQ(match_disk_class(500).name, "sata-ssd");
  EXPECT_EQ(match_disk_class(2399).name, "sata-ssd");
  EXPECT_EQ(match_disk_class(3500).name, "nvme");
  EXPECT_DOUBLE_EQ(parse_throttle("network").mb_per_s, 1200);
  EXPECT_DOUBLE_EQ(parse_throttle("hdd").iops, 150);
  EXPECT_DOUBLE_EQ(parse_throttle("300,1000").iops, 1000);
  EXPECT_THROW(parse_throttle("tape"), std::invalid_argument);
  for (std::size_t i = 1; i < disk_classes().size(); ++i) {
    EXPECT_LT(disk_classes()[i - 1].spec.mb_per_s, disk_classes()[i].spec.mb_per_s);
  }
}

}  // namespace
}  // namespace feedrate::io
