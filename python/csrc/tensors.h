// Hands a batch to Python without copying its pixels: the DLPack tensors that Batch exports
// become torch tensors (torch.utils.dlpack.from_dlpack on a "dltensor" capsule) or, where torch
// is absent or numpy is asked for, numpy arrays over the same host memory. Either keeps the
// batch's slot leased until Python drops the array. Thread-safety: call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "feedrate/batch.h"
#include "python/csrc/options.h"

namespace feedrate::python {

// Resolves kAuto: torch when `import torch` works, else numpy. Raises ImportError when the
// module the arrays need does not import.
ArrayKind resolve_arrays(ArrayKind requested);

// (images, *fields) or (images, *fields, indices): each field of LoaderOptions::fields in its
// order (field_values.h; cls: the labels). A detection batch puts its targets after the images
// (targets.h): a list of dicts, the flat layout's three arrays, or Ultralytics' batch dict
// (without img, the images before it). On a CUDA device the batch is first made to arrive on
// torch's current stream for that device (Batch::wait), so kernels queued there afterwards see
// the data and the slot is refilled only after them. Labels are int64, like DataLoader's (a cast
// of the zero-copy int32 labels); indices are int64 dataset indices.
pybind11::tuple to_python(const Batch& batch, ArrayKind arrays, const PythonOptions& options);

// An int64 tensor (or numpy array) of `count` values.
pybind11::object int64_array(std::size_t count,
                             const std::function<std::int64_t(std::size_t)>& value,
                             ArrayKind arrays);

}  // namespace feedrate::python
