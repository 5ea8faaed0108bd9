// gpu/ entry points for a build without the CUDA toolkit: only the host exists.
#include <stdexcept>

#include "gpu/cuda_backend.h"
#include "gpu/device.h"
#include "gpu/host_memory.h"
#include "gpu/trace.h"

namespace feedrate::gpu {

bool cuda_built() {
  return false;
}

std::vector<CudaDeviceInfo> cuda_devices() {
  return {};
}

HostBuffer HostBuffer::pinned(std::size_t) {
  throw std::runtime_error("pinned memory needs CUDA, and feedrate was built without it");
}

std::unique_ptr<Transfer> make_cuda_transfer(const TransferOptions& options) {
  require(options.device);  // throws for every CUDA device in a build without CUDA
  throw std::logic_error("make_cuda_transfer called for device " + options.device.name());
}

TraceRange::TraceRange(const char*) {}
TraceRange::~TraceRange() = default;

}  // namespace feedrate::gpu
