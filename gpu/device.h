// Which device batches are delivered to, and what CUDA devices this machine has.
//
// "cpu" (or "host") keeps batches in host memory; "cuda" or "cuda:N" copies them to GPU N.
// CUDA support is optional at build time: without it, or without a driver or device, only the
// host is available and require() says so in plain words. Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace feedrate::gpu {

struct Device {
  enum class Kind { kHost, kCuda };
  Kind kind = Kind::kHost;
  int index = 0;
  std::string name() const;  // "host" or "cuda:N"
  bool is_cuda() const { return kind == Kind::kCuda; }
};

// Parses "cpu", "host", "cuda", "cuda:N". Throws std::invalid_argument naming the text.
Device parse_device(std::string_view text);

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  std::size_t memory_bytes = 0;
  int compute_major = 0, compute_minor = 0;
  std::string pci_bus_id;  // "0000:3b:00.0"
  std::string pcie_link;   // "16.0 GT/s PCIe x16", from sysfs; empty when unknown
};

bool cuda_built();
// The CUDA devices visible to this process; empty without CUDA, a driver or a device.
std::vector<CudaDeviceInfo> cuda_devices();

// Throws std::runtime_error with a clear message when `device` cannot be used here (built
// without CUDA, no driver, no such device index).
void require(const Device& device);

}  // namespace feedrate::gpu
