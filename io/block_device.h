// Which file system and block device hold a path, and whether the kernel calls the device
// rotational, from /proc/self/mountinfo and /sys/dev/block. For `feedrate doctor`.
// Thread-safety: reentrant.
#pragma once

#include <filesystem>
#include <string>

namespace feedrate::io {

struct BlockDevice {
  std::string mount_point;  // the mount holding the path ("/" when unsure)
  std::string fs_type;      // "ext4", "xfs", "overlay", "tmpfs", ... (empty when unknown)
  std::string source;       // what is mounted: "/dev/vda", "overlay", a server:path
  std::string device;       // the block device's kernel name ("vda", "nvme0n1p1"); empty: none
  int rotational = -1;      // queue/rotational of the device (or its parent disk); -1 unknown
};

// Describes the file system of `path` (which must exist). Never throws: what cannot be read
// stays empty or -1.
BlockDevice block_device_of(const std::filesystem::path& path);

}  // namespace feedrate::io
