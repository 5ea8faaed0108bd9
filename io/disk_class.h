// The disk classes as read limits, shared by `feedrate doctor` (which class a measured disk
// matches) and `feedrate plan` (what a class can feed). They are the throttle's classes
// (io/throttle_spec.h: their figures and sources), so a plan and an emulated run agree; "network"
// is a storage server over 10 GbE: 1200 MB/s, and a network round trip per request (500 us
// assumed). Thread-safety: reentrant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "io/throttle_spec.h"

namespace feedrate::io {

struct DiskClass {
  std::string name;   // "hdd", "sata-ssd", "nvme", "network"
  std::string label;  // "HDD", "SATA SSD", ...
  ThrottleSpec spec;
};

// By read bandwidth, slowest first: hdd, sata-ssd, network, nvme.
const std::vector<DiskClass>& disk_classes();

// The class a measured sequential read rate reaches: the fastest of hdd, sata-ssd, nvme whose
// read figure it meets (below SATA SSD's 500 MB/s: hdd, whatever the device is).
const DiskClass& match_disk_class(double sequential_mb_per_s);

}  // namespace feedrate::io
