#include "gpu/transfer.h"

#include "gpu/cuda_backend.h"

namespace feedrate::gpu {
namespace {

// Batches stay where the decoders wrote them: the staging buffer is the output.
class HostTransfer final : public Transfer {
 public:
  explicit HostTransfer(DType dtype) : dtype_(dtype) {}
  HostBuffer allocate_staging(std::size_t bytes) override { return HostBuffer(bytes); }
  void submit(std::size_t, const HostBuffer&, const std::int32_t*, std::size_t) override {}
  DeviceBatch output(std::size_t, const HostBuffer& staging,
                     std::int32_t* host_labels) const override {
    return {Device{}, staging.data(), host_labels, dtype_};
  }
  void wait(std::size_t, void*) override {}
  void release(std::size_t) override {}
  bool staging_idle(std::size_t) override { return true; }
  bool converts_on_device() const override { return false; }

 private:
  DType dtype_;
};

}  // namespace

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kUint8:
      return 1;
    case DType::kFloat16:
      return 2;
    case DType::kFloat32:
      return 4;
  }
  return 0;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kUint8:
      return "uint8";
    case DType::kFloat16:
      return "float16";
    case DType::kFloat32:
      return "float32";
  }
  return "unknown";
}

std::unique_ptr<Transfer> make_transfer(const TransferOptions& options) {
  require(options.device);
  if (options.device.is_cuda()) return make_cuda_transfer(options);
  return std::make_unique<HostTransfer>(options.dtype);
}

}  // namespace feedrate::gpu
