#include "gpu/transfer.h"

#include "gpu/cuda_backend.h"

namespace feedrate::gpu {
namespace {

// Batches stay where the decoders wrote them: the staging buffer is the output.
class HostTransfer final : public Transfer {
 public:
  explicit HostTransfer(ElementType dtype) : dtype_(dtype) {}
  HostBuffer allocate_staging(std::size_t bytes) override { return HostBuffer(bytes); }
  void submit(std::size_t, const HostBuffer&, const std::int32_t*, std::size_t,
              std::size_t) override {}
  DeviceBatch output(std::size_t, const HostBuffer& staging,
                     std::int32_t* host_labels) const override {
    return {Device{}, staging.data(), host_labels, dtype_};
  }
  void wait(std::size_t, void*) override {}
  void release(std::size_t) override {}
  bool staging_idle(std::size_t) override { return true; }

 private:
  ElementType dtype_;
};

}  // namespace

bool converts_on_device(const Device& device) {
  return device.is_cuda();
}

std::unique_ptr<Transfer> make_transfer(const TransferOptions& options) {
  require(options.device);
  if (options.device.is_cuda()) return make_cuda_transfer(options);
  return std::make_unique<HostTransfer>(options.dtype);
}

}  // namespace feedrate::gpu
