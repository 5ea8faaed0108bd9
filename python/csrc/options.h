// Translates the keyword arguments of feedrate.Loader(...) into LoaderOptions: the one place
// that knows the Python names and their types. The allowed words of dtype, transform and on_bad
// come from the loader's parsers (include/feedrate/options.h), and the numeric bounds from its
// one table (loader/pipeline/option_bounds.h), both shared with the command line. An unknown
// keyword or a value of the wrong type is a TypeError naming the keyword; a value outside its
// range or vocabulary is a ValueError naming it and the range; what the Loader checks beyond
// that (rank below world_size, a dataset that opens) is a feedrate.Error. Thread-safety: call
// with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "feedrate/options.h"

namespace feedrate::python {

// What the yielded arrays are: torch tensors, numpy arrays, or torch when it imports.
enum class ArrayKind { kAuto, kTorch, kNumpy };

// How a detection batch's targets are given (python/csrc/targets.h).
enum class TargetLayout { kDicts, kFlat, kYolo };

struct PythonOptions {
  LoaderOptions loader;
  ArrayKind arrays = ArrayKind::kAuto;
  TargetLayout targets = TargetLayout::kDicts;
  bool progress = false;        // a progress line on stderr
  bool return_indices = false;  // yield (images, labels, indices)
};

// `source`: a str or an os.PathLike.
PythonOptions parse_options(const pybind11::object& source, const pybind11::kwargs& kwargs);

// The keywords parse_options accepts, for the docstring and error messages.
std::string option_names();

// Every keyword parse_options accepts: {name: (annotation, default)}, the annotation as the
// package's stubs spell the keyword's type (typing names: "int", "Optional[Tuple[float, float]]",
// "Literal['error', 'skip']"), the default what a caller who leaves the keyword out gets (None
// where the loader derives it). tests/python/test_typed_signatures.py holds the stubs to it.
pybind11::dict option_table();

}  // namespace feedrate::python
