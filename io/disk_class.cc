#include "io/disk_class.h"

namespace feedrate::io {

const std::vector<DiskClass>& disk_classes() {
  static const std::vector<DiskClass> classes = {
      {"hdd", "HDD", parse_throttle("hdd")},
      {"sata-ssd", "SATA SSD", parse_throttle("sata-ssd")},
      {"network", "network storage (10 GbE)", parse_throttle("network")},
      {"nvme", "NVMe SSD", parse_throttle("nvme")},
  };
  return classes;
}

const DiskClass& match_disk_class(double sequential_mb_per_s) {
  const DiskClass* match = &disk_classes().front();
  for (const DiskClass& c : disk_classes()) {
    if (c.name != "network" && sequential_mb_per_s >= c.spec.mb_per_s) match = &c;
  }
  return *match;
}

}  // namespace feedrate::io
