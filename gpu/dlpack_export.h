// Describes a batch's memory as a DLPack tensor, so PyTorch (torch.from_dlpack), NumPy, CuPy and
// others take it without a copy. Thread-safety: reentrant; the returned tensor's deleter may run
// on any thread, once.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <functional>
#include <span>

#include "gpu/device.h"
#include "gpu/element_type.h"

namespace feedrate::gpu {

// A contiguous (row-major) tensor of `shape` at `data` on `device`. `on_delete` runs when the
// consumer calls the tensor's deleter: it keeps the memory alive until then.
DLManagedTensor* make_dlpack_tensor(void* data, const Device& device, ElementType type,
                                    std::span<const std::int64_t> shape,
                                    std::function<void()> on_delete);

}  // namespace feedrate::gpu
