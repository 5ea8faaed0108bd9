// Translates the keyword arguments of feedrate.Loader(...) into LoaderOptions: the one place
// that knows the Python names and their types; the allowed words of dtype, transform and on_bad
// come from the loader's parsers (include/feedrate/options.h), shared with the command line. An
// unknown keyword is a TypeError naming the known ones; a bad value is a ValueError naming the
// keyword; ranges are checked afterwards by the Loader (feedrate.Error). Thread-safety: call with
// the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "feedrate/options.h"

namespace feedrate::python {

// What the yielded arrays are: torch tensors, numpy arrays, or torch when it imports.
enum class ArrayKind { kAuto, kTorch, kNumpy };

struct PythonOptions {
  LoaderOptions loader;
  ArrayKind arrays = ArrayKind::kAuto;
  bool progress = false;        // a progress line on stderr
  bool return_indices = false;  // yield (images, labels, indices)
  // Written by options.cc for a transform that is no str, which feedrate.Loader never passes
  // (it reads torchvision objects into a spec text and permutes their uint8 batches itself,
  // python/feedrate/_loader.py); read by nobody. It goes when options.cc drops that branch.
  bool channels_first = false;
};

// `source`: a str or an os.PathLike.
PythonOptions parse_options(const pybind11::object& source, const pybind11::kwargs& kwargs);

// The keywords parse_options accepts, for the docstring and error messages.
std::string option_names();

}  // namespace feedrate::python
