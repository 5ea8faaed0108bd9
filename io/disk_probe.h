// A short measurement of the disk under a directory: sequential read MB/s (1 MiB reads, 8 in
// flight) and random-read IOPS (4 KiB reads at random aligned offsets, 32 in flight), both with
// O_DIRECT on a temporary file written there, so that the page cache does not answer. Reads go
// through io::Reader (io_uring, or pread where refused). For `feedrate doctor`.
//
// Thread-safety: reentrant; each call owns its file and reader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace feedrate::io {

struct DiskProbeOptions {
  std::uint64_t file_bytes = std::uint64_t{128} << 20;  // written once, then read
  double seconds_per_test = 1.5;                        // each of the two measurements
  std::uint64_t seed = 1;                               // random offsets
};

struct DiskProbe {
  bool direct = false;  // O_DIRECT was used (else the file system refused it: figures are cached)
  std::string backend;  // the reader that ran, e.g. "io_uring+fixed-buffers+O_DIRECT"
  double sequential_mb_per_s = 0;
  double random_iops = 0;  // 4 KiB reads
  double random_latency_p50_us = 0;
  double seconds = 0;  // the whole probe, writing the file included
};

// Writes `options.file_bytes` to a temporary file in `directory` (removed before returning,
// also on error), then measures. Throws std::system_error naming the directory when the file
// cannot be created or written, or feedrate's read error when a read fails.
DiskProbe probe_disk(const std::filesystem::path& directory, const DiskProbeOptions& options = {});

}  // namespace feedrate::io
