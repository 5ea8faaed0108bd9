// Turns a batch's non-image fields into Python values when the batch is handed over, on the
// consumer's thread (the decode threads never touch Python): integers (cls2, index) become an
// int64 tensor (or numpy array), text and __key__ a list of str, json a list of json.loads
// values, npy a list of numpy arrays (numpy.load, no pickles), any other member a list of bytes.
// A key that is not UTF-8 keeps its bytes as surrogates (errors="surrogateescape"), as
// tarfile's names do. The decode stage has checked every other value as Python reads it
// (loader/pipeline/field_check.h); should Python still refuse one, feedrate.Error names the
// sample and the field. Thread-safety: call with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>

#include "feedrate/batch.h"
#include "python/csrc/options.h"

namespace feedrate::python {

// Field `f` (not cls) of every sample of `batch`.
pybind11::object field_values(const Batch& batch, std::size_t f, ArrayKind arrays);

}  // namespace feedrate::python
