// Helpers for the CUDA suites (cuda_test): skip without a GPU, a CUDA stream for a test's
// lifetime, device memory copied back to the host. Thread-safety: none needed (test bodies).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "gpu/device.h"

#define SKIP_WITHOUT_GPU() \
  if (feedrate::gpu::cuda_devices().empty()) GTEST_SKIP() << "no CUDA device on this machine"

namespace feedrate::testing {

// A CUDA stream for a test's lifetime: by default one that synchronises with the legacy
// default stream; cudaStreamNonBlocking for one that does not, as a training loop's own may.
struct Stream {
  explicit Stream(unsigned flags = cudaStreamDefault) {
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream, flags), cudaSuccess);
  }
  ~Stream() { cudaStreamDestroy(stream); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t stream = nullptr;
};

// `count` elements of device memory, copied back with cudaMemcpy on the legacy default stream
// (which does not wait for the copier's own non-blocking stream: synchronise on the stream
// that waited for the batch first).
template <typename T>
std::vector<T> to_host(const void* device, std::size_t count) {
  std::vector<T> host(count);
  EXPECT_EQ(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost),
            cudaSuccess);
  return host;
}

}  // namespace feedrate::testing
