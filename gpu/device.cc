#include "gpu/device.h"

#include <charconv>
#include <stdexcept>

namespace feedrate::gpu {

std::string Device::name() const {
  return kind == Kind::kHost ? "host" : "cuda:" + std::to_string(index);
}

Device parse_device(std::string_view text) {
  if (text == "cpu" || text == "host") return {};
  if (text == "cuda") return {Device::Kind::kCuda, 0};
  if (text.substr(0, 5) == "cuda:") {
    int index = -1;
    const std::string_view digits = text.substr(5);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (error == std::errc() && end == digits.data() + digits.size() && index >= 0) {
      return {Device::Kind::kCuda, index};
    }
  }
  throw std::invalid_argument("device '" + std::string(text) +
                              "' is not one of cpu, host, cuda, cuda:N");
}

void require(const Device& device) {
  if (!device.is_cuda()) return;
  if (!cuda_built()) {
    throw std::runtime_error("device " + device.name() +
                             " requested, but feedrate was built without CUDA (use device cpu, "
                             "or rebuild with the CUDA toolkit installed)");
  }
  const std::vector<CudaDeviceInfo> devices = cuda_devices();
  if (device.index >= static_cast<int>(devices.size())) {
    throw std::runtime_error("device " + device.name() + " requested, but this machine has " +
                             (devices.empty()
                                  ? std::string("no usable CUDA device (no GPU, or no driver)")
                                  : std::to_string(devices.size()) + " CUDA device(s): cuda:0.." +
                                        "cuda:" + std::to_string(devices.size() - 1)));
  }
}

}  // namespace feedrate::gpu
