// The kernel of the probe's stream-ordering check (probe.h): one block; its first thread spins
// for a given number of clock cycles, then the block copies.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "bench/micro/nvjpeg_probe/probe.h"

namespace feedrate::probe {
namespace {

__global__ void spin_then_copy(const unsigned char* from, unsigned char* to, std::size_t bytes,
                               long long cycles) {
  if (threadIdx.x == 0) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
  }
  __syncthreads();
  for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) to[i] = from[i];
}

}  // namespace

cudaError_t launch_spin_then_copy(const unsigned char* from, unsigned char* to, std::size_t bytes,
                                  double ms, cudaStream_t stream) {
  int device = 0;
  int khz = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device);
  if (status != cudaSuccess) return status;
  const auto cycles = static_cast<long long>(ms * khz);
  spin_then_copy<<<1, 1024, 0, stream>>>(from, to, bytes, cycles);
  return cudaGetLastError();
}

}  // namespace feedrate::probe
