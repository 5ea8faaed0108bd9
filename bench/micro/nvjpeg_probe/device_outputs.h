// Device buffers for the probe's decoded images (bench/micro/nvjpeg_probe), and the
// nvjpegImage_t views nvJPEG writes through. Thread-safety: one thread each.
#pragma once

#include <cuda_runtime_api.h>
#include <nvjpeg.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "bench/micro/nvjpeg_probe/probe.h"

namespace feedrate::probe {

// Device buffers for `count` decoded images of at most `largest` bytes each, and their
// nvjpegImage_t views (interleaved RGB: one plane).
class Outputs {
 public:
  Outputs(std::size_t count, std::size_t largest) : buffers_(count), images_(count) {
    for (std::size_t i = 0; i < count && status_ == cudaSuccess; ++i) {
      status_ = cudaMalloc(reinterpret_cast<void**>(&buffers_[i]), largest);
    }
  }
  ~Outputs() {
    for (unsigned char* buffer : buffers_) cudaFree(buffer);
  }
  Outputs(const Outputs&) = delete;
  Outputs& operator=(const Outputs&) = delete;

  cudaError_t status() const { return status_; }
  unsigned char* buffer(std::size_t i) const { return buffers_[i]; }
  // Views for the images `jpegs[use[first..first+count)]`, in that order.
  nvjpegImage_t* views(const std::vector<Jpeg>& jpegs, const std::vector<std::size_t>& use,
                       std::size_t first, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) {
      images_[k] = nvjpegImage_t{};
      images_[k].channel[0] = buffers_[k];
      images_[k].pitch[0] = static_cast<std::size_t>(jpegs[use[first + k]].width) * 3;
    }
    return images_.data();
  }

 private:
  std::vector<unsigned char*> buffers_;
  std::vector<nvjpegImage_t> images_;
  cudaError_t status_ = cudaSuccess;
};

// The most bytes one of `use` decodes to (interleaved RGB).
inline std::size_t largest_output(const std::vector<Jpeg>& jpegs,
                                  const std::vector<std::size_t>& use) {
  std::size_t largest = 0;
  for (const std::size_t i : use) {
    largest = std::max(largest, static_cast<std::size_t>(jpegs[i].width) * jpegs[i].height * 3);
  }
  return largest;
}

}  // namespace feedrate::probe
