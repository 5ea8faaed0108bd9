// The element type of a tensor the loader delivers: images (uint8, float16, float32) and labels
// (int32). One enum for the copier (gpu/transfer.h), the DLPack export (gpu/dlpack_export.h) and
// the loader's layouts. Thread-safety: constants and pure functions.
#pragma once

#include <cstddef>

namespace feedrate::gpu {

enum class ElementType { kUint8, kInt32, kFloat16, kFloat32 };

// Bytes per element.
constexpr std::size_t element_size(ElementType type) {
  switch (type) {
    case ElementType::kUint8:
      return 1;
    case ElementType::kFloat16:
      return 2;
    case ElementType::kInt32:
    case ElementType::kFloat32:
      return 4;
  }
  return 0;
}

// "uint8", "int32", "float16", "float32".
constexpr const char* element_name(ElementType type) {
  switch (type) {
    case ElementType::kUint8:
      return "uint8";
    case ElementType::kInt32:
      return "int32";
    case ElementType::kFloat16:
      return "float16";
    case ElementType::kFloat32:
      return "float32";
  }
  return "unknown";
}

}  // namespace feedrate::gpu
