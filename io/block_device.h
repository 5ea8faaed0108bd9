// Which file system and block device hold a path, and what the kernel says of the device
// (rotational, logical block size, model), from /proc/self/mountinfo, statfs and
// /sys/dev/block. For `feedrate doctor` and the I/O benchmark's heading. Thread-safety:
// reentrant.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace feedrate::io {

struct BlockDevice {
  std::string mount_point;     // the mount holding the path ("/" when unsure)
  std::string fs_type;         // "ext4", "xfs", "overlay", "tmpfs", ... (empty when unknown)
  std::string source;          // what is mounted: "/dev/vda", "overlay", a server:path
  std::uint64_t fs_magic = 0;  // statfs f_type (0xef53 for ext4); 0 when unknown
  std::string numbers;         // "MAJOR:MINOR" of the path's st_dev; empty when stat fails
  std::string device;          // the block device's kernel name ("vda", "nvme0n1p1"); empty: none
  // Of the device, or of its disk for a partition (which has no queue of its own):
  int rotational = -1;           // queue/rotational; -1 unknown
  int logical_block_bytes = -1;  // queue/logical_block_size; -1 unknown
  std::string model;             // device/model, trimmed; empty when absent (virtio has none)
};

// Describes the file system of `path` (which must exist). Never throws: what cannot be read
// stays empty or -1.
BlockDevice block_device_of(const std::filesystem::path& path);

}  // namespace feedrate::io
