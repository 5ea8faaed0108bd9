// gpu/ entry points for a build with CUDA: device queries, pinned memory and the CUDA copier.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/cuda_backend.h"
#include "gpu/device.h"
#include "gpu/host_memory.h"
#include "gpu/pcie.h"
#include "gpu/trace.h"

namespace feedrate::gpu {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(status) + ": " +
                             cudaGetErrorString(status));
  }
}

void free_pinned(std::byte* data) noexcept {
  cudaFreeHost(data);
}

template <typename T>
__device__ T from_float(float x);
template <>
__device__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __half from_float<__half>(float x) {
  return __float2half_rn(x);
}

// x * scale + bias rounded as the host path rounds it (decode/layout.cc: a multiply, then an
// add), so that the device delivers the host's bytes: nvcc would otherwise fuse the two into
// one FMA, which differs in the last bit for about half of the 768 uint8 x channel values.
__device__ float normalized(unsigned char x, float scale, float bias) {
  return __fadd_rn(__fmul_rn(static_cast<float>(x), scale), bias);
}

// uint8 NHWC -> T NCHW, ((x / 255) - mean) / std == x * scale + bias. One thread per pixel:
// three byte loads, three stores that are coalesced within each plane.
template <typename T>
__global__ void normalize_kernel(const unsigned char* in, T* out, std::size_t pixels_per_image,
                                 std::size_t pixels, float3 scale, float3 bias) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const std::size_t image = i / pixels_per_image;
  const std::size_t pixel = i % pixels_per_image;
  const unsigned char* rgb = in + 3 * i;
  T* plane = out + image * 3 * pixels_per_image + pixel;
  plane[0] = from_float<T>(normalized(rgb[0], scale.x, bias.x));
  plane[pixels_per_image] = from_float<T>(normalized(rgb[1], scale.y, bias.y));
  plane[2 * pixels_per_image] = from_float<T>(normalized(rgb[2], scale.z, bias.z));
}

class CudaTransfer final : public Transfer {
 public:
  explicit CudaTransfer(const TransferOptions& options) : options_(options) {
    check(cudaSetDevice(options_.device.index), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    const std::size_t pixels =
        options_.batch_size * static_cast<std::size_t>(options_.size) * options_.size;
    slots_.resize(options_.slots);
    for (Slot& slot : slots_) {
      check(cudaMalloc(&slot.images_u8, pixels * 3), "cudaMalloc (images)");
      slot.images_out = slot.images_u8;
      if (options_.dtype != ElementType::kUint8) {
        check(cudaMalloc(&slot.images_out, pixels * 3 * element_size(options_.dtype)),
              "cudaMalloc (normalised images)");
      }
      check(cudaMalloc(&slot.labels, options_.batch_size * sizeof(std::int32_t)),
            "cudaMalloc (labels)");
      check(cudaHostAlloc(&slot.host_labels, options_.batch_size * sizeof(std::int32_t),
                          cudaHostAllocDefault),
            "cudaHostAlloc (labels)");
      check(cudaEventCreateWithFlags(&slot.copied, cudaEventDisableTiming), "cudaEventCreate");
      check(cudaEventCreateWithFlags(&slot.released, cudaEventDisableTiming), "cudaEventCreate");
    }
  }

  ~CudaTransfer() override {
    cudaSetDevice(options_.device.index);
    cudaStreamSynchronize(stream_);
    for (Slot& slot : slots_) {
      if (slot.images_out != slot.images_u8) cudaFree(slot.images_out);
      cudaFree(slot.images_u8);
      cudaFree(slot.labels);
      cudaFreeHost(slot.host_labels);
      cudaEventDestroy(slot.copied);
      cudaEventDestroy(slot.released);
    }
    cudaStreamDestroy(stream_);
  }

  HostBuffer allocate_staging(std::size_t bytes) override { return HostBuffer::pinned(bytes); }

  void submit(std::size_t index, const HostBuffer& staging, const std::int32_t* labels,
              std::size_t count, std::size_t pixels_per_image) override {
    Slot& slot = slots_.at(index);
    check(cudaSetDevice(options_.device.index), "cudaSetDevice");
    // The consumer may still be reading this slot's device memory from its own stream.
    if (slot.release_recorded) check(cudaStreamWaitEvent(stream_, slot.released, 0), "wait");
    std::copy(labels, labels + count, slot.host_labels);
    const std::size_t pixels = count * pixels_per_image;
    check(cudaMemcpyAsync(slot.images_u8, staging.data(), pixels * 3, cudaMemcpyHostToDevice,
                          stream_),
          "cudaMemcpyAsync (images)");
    check(cudaMemcpyAsync(slot.labels, slot.host_labels, count * sizeof(std::int32_t),
                          cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (labels)");
    if (options_.dtype != ElementType::kUint8 && pixels > 0) {
      float3 scale, bias;
      float* s = &scale.x;
      float* b = &bias.x;
      for (int c = 0; c < 3; ++c) {
        s[c] = 1.0f / (255.0f * options_.std[c]);
        b[c] = -options_.mean[c] / options_.std[c];
      }
      constexpr unsigned kThreads = 256;
      const auto blocks = static_cast<unsigned>((pixels + kThreads - 1) / kThreads);
      const auto* in = static_cast<const unsigned char*>(slot.images_u8);
      if (options_.dtype == ElementType::kFloat16) {
        normalize_kernel<<<blocks, kThreads, 0, stream_>>>(
            in, static_cast<__half*>(slot.images_out), pixels_per_image, pixels, scale, bias);
      } else {
        normalize_kernel<<<blocks, kThreads, 0, stream_>>>(in, static_cast<float*>(slot.images_out),
                                                           pixels_per_image, pixels, scale, bias);
      }
      check(cudaGetLastError(), "normalize kernel launch");
    }
    check(cudaEventRecord(slot.copied, stream_), "cudaEventRecord");
    slot.submitted = true;
    slot.consumer_stream = nullptr;
  }

  DeviceBatch output(std::size_t index, const HostBuffer&, std::int32_t*) const override {
    const Slot& slot = slots_.at(index);
    return {options_.device, slot.images_out, slot.labels, options_.dtype};
  }

  void wait(std::size_t index, void* consumer_stream) override {
    Slot& slot = slots_.at(index);
    slot.consumer_stream = static_cast<cudaStream_t>(consumer_stream);
    check(cudaStreamWaitEvent(slot.consumer_stream, slot.copied, 0), "cudaStreamWaitEvent");
  }

  void release(std::size_t index) override {
    // Called when the consumer lets the batch go: work it queued on its stream before now may
    // still read the slot, so the next copy into it waits for this point of that stream.
    Slot& slot = slots_.at(index);
    if (!slot.submitted) return;
    check(cudaSetDevice(options_.device.index), "cudaSetDevice");
    check(cudaEventRecord(slot.released, slot.consumer_stream), "cudaEventRecord (release)");
    slot.release_recorded = true;
  }

  bool staging_idle(std::size_t index) override {
    Slot& slot = slots_.at(index);
    if (!slot.submitted) return true;
    const cudaError_t status = cudaEventQuery(slot.copied);
    if (status == cudaErrorNotReady) return false;
    check(status, "cudaEventQuery");
    return true;
  }

 private:
  struct Slot {
    void* images_u8 = nullptr;
    void* images_out = nullptr;
    std::int32_t* labels = nullptr;
    std::int32_t* host_labels = nullptr;
    cudaEvent_t copied = nullptr;
    cudaEvent_t released = nullptr;
    cudaStream_t consumer_stream = nullptr;  // legacy default stream unless wait() named one
    bool submitted = false;
    bool release_recorded = false;
  };

  TransferOptions options_;
  cudaStream_t stream_ = nullptr;
  std::vector<Slot> slots_;
};

}  // namespace

TraceRange::TraceRange(const char* name) {
  nvtxRangePushA(name);
}
TraceRange::~TraceRange() {
  nvtxRangePop();
}

bool cuda_built() {
  return true;
}

std::vector<CudaDeviceInfo> cuda_devices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return {};
  }
  std::vector<CudaDeviceInfo> devices;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    CudaDeviceInfo info;
    info.index = i;
    info.name = prop.name;
    info.memory_bytes = prop.totalGlobalMem;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), i) == cudaSuccess) {
      info.pci_bus_id = bus_id;
      info.pcie_link = pcie_link(info.pci_bus_id);
    }
    devices.push_back(info);
  }
  return devices;
}

HostBuffer HostBuffer::pinned(std::size_t bytes) {
  void* data = nullptr;
  check(cudaHostAlloc(&data, bytes == 0 ? 1 : bytes, cudaHostAllocDefault), "cudaHostAlloc");
  return HostBuffer(static_cast<std::byte*>(data), bytes, free_pinned, true);
}

std::unique_ptr<Transfer> make_cuda_transfer(const TransferOptions& options) {
  return std::make_unique<CudaTransfer>(options);
}

}  // namespace feedrate::gpu
