// The limits of an emulated disk class, as a value: what the throttle (io/throttle.h) enforces
// on a run's reads and what `feedrate plan` projects a disk from (through
// loader/diagnosis/throughput_model.h).
//
// Thread-safety: a plain value and pure functions.
#pragma once

#include <string>
#include <string_view>

namespace feedrate::io {

// Limits of an emulated disk. MB are 10^6 bytes, as disk makers count them; 0 means unlimited.
struct ThrottleSpec {
  double mb_per_s = 0;
  double iops = 0;
  double latency_us = 0;

  bool limited() const { return mb_per_s > 0 || iops > 0 || latency_us > 0; }
};

// Parses a disk class (io/disk_class.h lists them for doctor and plan) or explicit limits:
//   hdd       200 MB/s,    150 IOPS, 4000 us  (HDD: about 200 MB/s, 100-200 random IOPS,
//                                              seek-bound)
//   sata-ssd  500 MB/s, 50 000 IOPS,  100 us  (SATA SSD: 500 MB/s and more)
//   network  1200 MB/s,   unlimited,  500 us  (a storage server over 10 GbE: a round trip per
//                                              request)
//   nvme     2400 MB/s, 400 000 IOPS,  20 us  (NVMe SSD: 2400 MB/s and more)
//   MBPS[,IOPS[,LATENCY_US]]                   (omitted fields are unlimited)
// Throws std::invalid_argument naming `text` for anything else, and for negative, infinite or
// NaN numbers.
ThrottleSpec parse_throttle(std::string_view text);

// "200 MB/s, 150 IOPS, 4000 us latency", or "unlimited"; for statistics and logs.
std::string describe(const ThrottleSpec& spec);

// `spec` itself when every limit is finite and >= 0; throws std::invalid_argument naming them
// otherwise.
const ThrottleSpec& validated(const ThrottleSpec& spec);

}  // namespace feedrate::io
