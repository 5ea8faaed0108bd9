#include "python/csrc/options.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

#include "feedrate/error.h"

namespace feedrate::python {
namespace py = pybind11;

namespace {

using Setter = std::function<void(PythonOptions&, const py::handle&)>;

// Accepts "float32", "torch.float32", torch.float32 and numpy.float32 alike.
std::string word_of(const py::handle& value) {
  std::string word = py::str(value);
  for (const char* prefix : {"torch.", "<class 'numpy.", "numpy."}) {
    if (word.rfind(prefix, 0) == 0) word = word.substr(std::char_traits<char>::length(prefix));
  }
  if (!word.empty() && word.back() == '>') word = word.substr(0, word.size() - 2);
  return word;
}

constexpr std::array<Word<ArrayKind>, 3> kArrayKinds{
    {{"auto", ArrayKind::kAuto}, {"torch", ArrayKind::kTorch}, {"numpy", ArrayKind::kNumpy}}};

std::array<float, 3> three_floats(const char* name, const py::handle& value) {
  const auto values = value.cast<std::vector<float>>();
  if (values.size() != 3) {
    throw py::value_error(std::string(name) + ": expected 3 values (R, G, B), got " +
                          std::to_string(values.size()));
  }
  return {values[0], values[1], values[2]};
}

std::pair<double, double> two_doubles(const char* name, const py::handle& value) {
  const auto values = value.cast<std::vector<double>>();
  if (values.size() != 2) {
    throw py::value_error(std::string(name) + ": expected (low, high), got " +
                          std::to_string(values.size()) + " values");
  }
  return {values[0], values[1]};
}

// An integer that its (integral) option cannot hold: negative for a count, or too large.
struct OutOfRange {
  bool negative;
};

template <typename T>
Setter field(T LoaderOptions::*member) {
  return [member](PythonOptions& o, const py::handle& v) {
    try {
      o.loader.*member = v.cast<T>();
    } catch (const py::cast_error&) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v))
          throw OutOfRange{v.cast<py::int_>() < py::int_(0)};
      }
      throw;
    }
  };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"batch_size", field(&LoaderOptions::batch_size)},
      {"num_workers", field(&LoaderOptions::num_workers)},
      {"shuffle",
       [](PythonOptions& o, const py::handle& v) {
         if (py::isinstance<py::bool_>(v)) {
           o.loader.shuffle = v.cast<bool>() ? ShuffleMode::kFull : ShuffleMode::kNone;
         } else if (py::isinstance<py::str>(v)) {
           o.loader.shuffle = parse_shuffle(v.cast<std::string>());
         } else {
           throw py::cast_error();
         }
       }},
      {"shuffle_window_mb", field(&LoaderOptions::shuffle_window_mb)},
      {"seed", field(&LoaderOptions::seed)},
      {"drop_last", field(&LoaderOptions::drop_last)},
      {"rank", field(&LoaderOptions::rank)},
      {"world_size", field(&LoaderOptions::world_size)},
      {"pad_shards", field(&LoaderOptions::pad_shards)},
      {"on_bad",
       [](PythonOptions& o, const py::handle& v) { o.loader.on_bad = parse_policy(word_of(v)); }},
      {"max_pixels", field(&LoaderOptions::max_pixels)},
      {"device", [](PythonOptions& o,
                    const py::handle& v) { o.loader.device = py::str(v); }},  // torch.device too
      {"training_images_per_s", field(&LoaderOptions::training_images_per_s)},
      {"prefetch_batches", field(&LoaderOptions::prefetch_batches)},
      {"memory_budget_mb", field(&LoaderOptions::memory_budget_mb)},
      {"io_queue_depth", field(&LoaderOptions::io_queue_depth)},
      {"force_pread", field(&LoaderOptions::force_pread)},
      {"direct_io", field(&LoaderOptions::direct_io)},
      {"throttle", field(&LoaderOptions::throttle)},
      {"tar_chunk_bytes", field(&LoaderOptions::tar_chunk_bytes)},
      {"allow_paths_outside_root", field(&LoaderOptions::allow_paths_outside_root)},
      {"allow_empty_classes", field(&LoaderOptions::allow_empty_classes)},
      // The pack cache.
      {"cache_dir", [](PythonOptions& o,
                       const py::handle& v) { o.loader.cache_dir = py::str(v); }},  // a Path too
      {"cache_gb", field(&LoaderOptions::cache_gb)},
      // The transform's keywords are collected, then applied in one place (apply_transform).
      {"transform", [](PythonOptions&, const py::handle&) {}},
      {"size", [](PythonOptions&, const py::handle&) {}},
      {"resize", [](PythonOptions&, const py::handle&) {}},
      {"scale", [](PythonOptions&, const py::handle&) {}},
      {"ratio", [](PythonOptions&, const py::handle&) {}},
      {"flip_probability", [](PythonOptions&, const py::handle&) {}},
      {"dtype", [](PythonOptions& o,
                   const py::handle& v) { o.loader.layout = parse_layout(word_of(v), "dtype"); }},
      {"mean", [](PythonOptions& o,
                  const py::handle& v) { o.loader.normalization.mean = three_floats("mean", v); }},
      {"std", [](PythonOptions& o,
                 const py::handle& v) { o.loader.normalization.std = three_floats("std", v); }},
      {"arrays",
       [](PythonOptions& o, const py::handle& v) {
         o.arrays = parse_word("arrays", word_of(v), kArrayKinds);
       }},
      {"progress", [](PythonOptions& o, const py::handle& v) { o.progress = v.cast<bool>(); }},
      {"return_indices",
       [](PythonOptions& o, const py::handle& v) { o.return_indices = v.cast<bool>(); }},
  };
  return table;
}

py::object keyword(const py::kwargs& kwargs, const char* name) {
  return kwargs.contains(name) ? py::reinterpret_borrow<py::object>(kwargs[name]) : py::none();
}

// transform= a spec text ("train", "eval", "rrc(176),ta_wide,...") or a torchvision transform
// (feedrate._spec_from_torchvision reads its objects into a spec text and the output dtype);
// size, resize, scale, ratio and flip_probability then adjust the geometry.
void apply_transform(PythonOptions& options, const py::kwargs& kwargs) {
  const py::object transform = keyword(kwargs, "transform");
  const py::object size = keyword(kwargs, "size");
  const int out_size = size.is_none() ? 224 : size.cast<int>();
  std::string text = "train";
  if (py::isinstance<py::str>(transform)) {
    text = transform.cast<std::string>();
  } else if (!transform.is_none()) {
    const py::tuple read =
        py::module_::import("feedrate").attr("_spec_from_torchvision")(transform);
    text = read[0].cast<std::string>();
    if (!kwargs.contains("dtype"))
      options.loader.layout = parse_layout(read[1].cast<std::string>());
    options.channels_first = read[2].cast<bool>();
    if (!read[3].is_none()) options.loader.normalization.mean = three_floats("mean", read[3]);
    if (!read[4].is_none()) options.loader.normalization.std = three_floats("std", read[4]);
  }
  try {
    options.loader.transform = parse_transform(text, out_size);
  } catch (const Error& e) {
    throw py::value_error(e.what());
  }
  decode::TransformSpec& spec = options.loader.transform;
  // A spec naming normalize delivers floats unless a dtype says otherwise.
  if (spec.normalize && !kwargs.contains("dtype") &&
      options.loader.layout == OutputLayout::kUint8NHWC) {
    options.loader.layout = OutputLayout::kFloat32NCHW;
  }
  const auto given = [&](const char* name) { return !keyword(kwargs, name).is_none(); };
  try {
    if (given("resize")) spec.resize = kwargs["resize"].cast<int>();
    if (given("scale"))
      std::tie(spec.scale_min, spec.scale_max) = two_doubles("scale", kwargs["scale"]);
    if (given("ratio"))
      std::tie(spec.ratio_min, spec.ratio_max) = two_doubles("ratio", kwargs["ratio"]);
    if (given("flip_probability"))
      spec.flip_probability = kwargs["flip_probability"].cast<double>();
  } catch (const py::cast_error&) {
    throw py::type_error(
        "feedrate.Loader(): resize, scale, ratio or flip_probability has the wrong type");
  }
}

}  // namespace

std::string option_names() {
  std::string names;
  for (const auto& [name, setter] : setters()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

PythonOptions parse_options(const py::object& source, const py::kwargs& kwargs) {
  PythonOptions options;
  options.loader.source = py::str(py::module_::import("os").attr("fspath")(source));
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key);
    const auto setter = setters().find(name);
    if (setter == setters().end()) {
      throw py::type_error("feedrate.Loader() got an unexpected keyword argument '" + name +
                           "'; known: " + option_names());
    }
    if (value.is_none()) continue;  // None keeps the default
    try {
      setter->second(options, value);
    } catch (const OutOfRange& range) {
      throw py::value_error("feedrate.Loader(): " + name + "=" + std::string(py::repr(value)) +
                            " is out of range: " + name +
                            (range.negative ? " must not be negative" : " is too large"));
    } catch (const py::cast_error&) {
      throw py::type_error("feedrate.Loader(): " + name + "=" + std::string(py::repr(value)) +
                           " has the wrong type");
    } catch (const Error& e) {  // a word outside its option's vocabulary
      throw py::value_error(e.what());
    }
  }
  apply_transform(options, kwargs);
  return options;
}

}  // namespace feedrate::python
