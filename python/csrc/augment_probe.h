// Test hooks of the extension: feedrate._C._apply_op and _resized_crop (which tests reach through
// feedrate._testing) run one augmentation operation or resize with given parameters, so that
// tests compare them with torchvision's functional ops on the same uint8 image. Not part of the
// public API.
// Thread-safety: call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

namespace feedrate::python {

void register_augment_probe(pybind11::module_& m);

}  // namespace feedrate::python
