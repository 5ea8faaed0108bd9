#include "python/csrc/tensors.h"

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include <functional>
#include <string>
#include <vector>

#include "feedrate/error.h"
#include "gpu/device.h"
#include "python/csrc/field_values.h"
#include "python/csrc/targets.h"

namespace feedrate::python {
namespace py = pybind11;

namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";  // renamed by the consumer
constexpr int kNpyHalf = 23;  // NPY_HALF, numpy's float16 type number (stable since numpy 1.6)

// A capsule that owns `tensor` until a consumer takes it (and renames the capsule).
py::capsule dlpack_capsule(DLManagedTensor* tensor) {
  return py::capsule(tensor, kCapsuleName, [](PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, kUsedCapsuleName)) return;
    auto* owned = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
    if (owned != nullptr && owned->deleter != nullptr) owned->deleter(owned);
  });
}

// The numpy type of a DLPack element type, by type number: pybind11 before 2.12 reads a
// descriptor's element size from numpy 1's struct layout, which numpy 2 changed (it reads 0), so
// nothing here asks a dtype for its size.
py::dtype numpy_dtype(const DLDataType& type) {
  if (type.code == kDLUInt && type.bits == 8) return py::dtype::of<std::uint8_t>();
  if (type.code == kDLInt && type.bits == 32) return py::dtype::of<std::int32_t>();
  if (type.code == kDLFloat && type.bits == 32) return py::dtype::of<float>();
  if (type.code == kDLFloat && type.bits == 16) return py::dtype(kNpyHalf);
  throw Error("feedrate: unexpected DLPack element type " + std::to_string(type.code) + "/" +
              std::to_string(type.bits));
}

// Row-major strides in bytes. Given explicitly to every array made here: left empty, pybind11
// before 2.12 derives them from the dtype's element size, which is 0 under numpy 2, and every
// element then reads the first one.
std::vector<py::ssize_t> c_strides(const std::vector<py::ssize_t>& shape, py::ssize_t element) {
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = element;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

// A numpy array over the tensor's host memory; the array's base owns the tensor.
py::array numpy_view(DLManagedTensor* tensor) {
  const py::capsule owner(tensor, [](void* pointer) {
    auto* owned = static_cast<DLManagedTensor*>(pointer);
    owned->deleter(owned);
  });
  const DLTensor& t = tensor->dl_tensor;
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost) {
    throw Error(
        "feedrate: numpy arrays need the batch in host memory; use device=\"cpu\" or "
        "install torch for device tensors");
  }
  const std::vector<py::ssize_t> shape(t.shape, t.shape + t.ndim);
  return py::array(numpy_dtype(t.dtype), shape, c_strides(shape, t.dtype.bits / 8),
                   static_cast<const char*>(t.data) + t.byte_offset, owner);
}

const py::object& torch_from_dlpack() {
  // Never destroyed: a static py::object would be released after the interpreter is gone.
  static const auto* from_dlpack =
      new py::object(py::module_::import("torch.utils.dlpack").attr("from_dlpack"));
  return *from_dlpack;
}

// Makes the batch arrive on torch's current stream of the batch's device.
void wait_on_current_stream(const Batch& batch) {
  const gpu::Device device = gpu::parse_device(batch.device());
  if (!device.is_cuda()) return;
  const py::object stream = py::module_::import("torch.cuda").attr("current_stream")(device.index);
  const auto handle = stream.attr("cuda_stream").cast<std::uintptr_t>();
  batch.wait(reinterpret_cast<void*>(handle));
}

}  // namespace

ArrayKind resolve_arrays(ArrayKind requested) {
  // Import what the batches will need now, so a missing module is an ImportError here rather
  // than at the first batch.
  if (requested == ArrayKind::kAuto) {
    try {
      torch_from_dlpack();
      return ArrayKind::kTorch;
    } catch (const py::error_already_set& e) {
      if (!e.matches(PyExc_ImportError)) throw;
      requested = ArrayKind::kNumpy;
    }
  }
  if (requested == ArrayKind::kTorch) {
    torch_from_dlpack();
  } else {
    py::module_::import("numpy");
  }
  return requested;
}

py::object int64_array(std::size_t count, const std::function<std::int64_t(std::size_t)>& value,
                       ArrayKind arrays) {
  const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(count)};
  py::array_t<std::int64_t> array(shape, c_strides(shape, sizeof(std::int64_t)));
  std::int64_t* out = array.mutable_data();
  for (std::size_t i = 0; i < count; ++i) out[i] = value(i);
  if (arrays != ArrayKind::kTorch) return array;
  // torch.tensor, not torch.from_numpy: a torch built against numpy 1 has no numpy interop
  // under numpy 2 ("Numpy is not available").
  const py::module_ torch = py::module_::import("torch");
  return torch.attr("tensor")(array.attr("tolist")(), py::arg("dtype") = torch.attr("int64"));
}

py::tuple to_python(const Batch& batch, ArrayKind arrays, const PythonOptions& options) {
  py::list items;
  const auto labels = [&] {
    if (arrays == ArrayKind::kTorch) {
      return torch_from_dlpack()(dlpack_capsule(batch.labels_dlpack())).attr("long")();
    }
    return numpy_view(batch.labels_dlpack()).attr("astype")("int64");
  };
  if (arrays == ArrayKind::kTorch) {
    wait_on_current_stream(batch);
    items.append(torch_from_dlpack()(dlpack_capsule(batch.images_dlpack())));
  } else {
    items.append(numpy_view(batch.images_dlpack()));
  }
  py::object targets =
      batch.has_targets() ? targets_to_python(batch, options, arrays) : py::object(py::none());
  if (options.targets == TargetLayout::kFlat && !targets.is_none()) {
    for (const py::handle item : targets) items.append(item);
  } else if (!targets.is_none()) {
    items.append(targets);
  }
  for (std::size_t f = 0; f < batch.fields().size(); ++f) {
    items.append(batch.fields()[f].kind == FieldKind::kClass ? labels()
                                                             : field_values(batch, f, arrays));
  }
  if (options.return_indices) {
    const std::span<const std::uint32_t> indices = batch.indices();
    items.append(int64_array(
        indices.size(), [&](std::size_t i) { return std::int64_t{indices[i]}; }, arrays));
  }
  return py::tuple(items);
}

}  // namespace feedrate::python
