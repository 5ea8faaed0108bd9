#include "gpu/dlpack_export.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace feedrate::gpu {
namespace {

constexpr std::size_t kMaxDims = 4;

struct Owner {
  DLManagedTensor tensor{};
  std::int64_t shape[kMaxDims] = {};
  std::function<void()> on_delete;
};

void delete_owner(DLManagedTensor* tensor) {
  std::unique_ptr<Owner> owner(static_cast<Owner*>(tensor->manager_ctx));
  if (owner->on_delete) owner->on_delete();
}

DLDataType data_type(ElementType type) {
  switch (type) {
    case ElementType::kUint8:
      return {kDLUInt, 8, 1};
    case ElementType::kInt32:
      return {kDLInt, 32, 1};
    case ElementType::kFloat16:
      return {kDLFloat, 16, 1};
    case ElementType::kFloat32:
      return {kDLFloat, 32, 1};
  }
  return {kDLUInt, 8, 1};
}

}  // namespace

DLManagedTensor* make_dlpack_tensor(void* data, const Device& device, ElementType type,
                                    std::span<const std::int64_t> shape,
                                    std::function<void()> on_delete) {
  if (shape.size() > kMaxDims) throw std::invalid_argument("DLPack export: too many dimensions");
  auto owner = std::make_unique<Owner>();
  std::copy(shape.begin(), shape.end(), owner->shape);
  DLTensor& t = owner->tensor.dl_tensor;
  t.data = data;
  t.device = device.is_cuda() ? DLDevice{kDLCUDA, device.index} : DLDevice{kDLCPU, 0};
  t.ndim = static_cast<std::int32_t>(shape.size());
  t.dtype = data_type(type);
  t.shape = owner->shape;
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 0;
  owner->on_delete = std::move(on_delete);
  owner->tensor.manager_ctx = owner.get();
  owner->tensor.deleter = delete_owner;
  return &owner.release()->tensor;
}

}  // namespace feedrate::gpu
