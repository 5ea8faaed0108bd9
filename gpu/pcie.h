// The PCIe link of a device, read from sysfs by its PCI bus id ("0000:3b:00.0"), for
// `feedrate doctor`. Internal to gpu/. Thread-safety: reentrant.
#pragma once

#include <string>

namespace feedrate::gpu {

// "16.0 GT/s PCIe x16 (max 32.0 GT/s PCIe x16)"; empty when sysfs has no such device.
std::string pcie_link(const std::string& pci_bus_id);

}  // namespace feedrate::gpu
