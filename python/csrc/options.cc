#include "python/csrc/options.h"

#include <pybind11/stl.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "feedrate/error.h"
#include "loader/pipeline/option_bounds.h"
#include "python/csrc/keyword_values.h"

namespace feedrate::python {
namespace py = pybind11;

namespace {

// The transform and size a caller who gives neither gets.
constexpr const char* kDefaultTransform = "train";
constexpr int kDefaultSize = 224;

// What the keywords say, before the transform's are applied to the parsed spec text.
struct Parsed {
  PythonOptions options;
  std::string transform = kDefaultTransform;
  bool transform_given = false;
  int size = kDefaultSize;
  bool dtype_given = false;
  std::optional<int> resize;
  std::optional<std::pair<double, double>> scale, ratio;
  std::optional<double> flip_probability;
  std::optional<std::array<float, 3>> mean, std;
};

using Setter = std::function<void(Parsed&, const py::handle&)>;

// A keyword of feedrate.Loader: how its value is read, the type a caller passes (a Python
// annotation, as the package's stubs spell it: tests/python/test_typed_signatures.py holds them
// to this table) and the default a caller who leaves it out gets. None as a default stands for
// one the loader derives (resize from size, the dtype from the transform, ...).
struct Keyword {
  Setter set;
  std::string annotation;
  std::function<py::object()> default_value;  // called with the GIL held
};

// A default-constructed LoaderOptions. (A defaults() temporary inside these lambdas crashes
// GCC 12: an internal compiler error in check_noexcept_r.)
const LoaderOptions& defaults() {
  static const LoaderOptions options;
  return options;
}

// The default of a LoaderOptions field: the value a default-constructed LoaderOptions holds.
template <typename T>
std::function<py::object()> default_of(T LoaderOptions::*member) {
  return [member] { return py::cast(defaults().*member); };
}

py::object none() {
  return py::none();
}

constexpr std::array<Word<TargetLayout>, 3> kTargetLayouts{{{"dicts", TargetLayout::kDicts},
                                                            {"flat", TargetLayout::kFlat},
                                                            {"yolo", TargetLayout::kYolo}}};
constexpr std::array<Word<ArrayKind>, 3> kArrayKinds{
    {{"auto", ArrayKind::kAuto}, {"torch", ArrayKind::kTorch}, {"numpy", ArrayKind::kNumpy}}};

// A field whose bound the table holds: an int or a float (mypy takes an int for a float).
template <typename T>
Keyword bounded(T LoaderOptions::*member, std::string_view name) {
  const OptionBound& bound = option_bound(name);
  return {[member, &bound](Parsed& p, const py::handle& v) {
            p.options.loader.*member = static_cast<T>(number(v, bound));
          },
          bound.integral ? "int" : "float", default_of(member)};
}

// A field of another type: a bool, a str, or the seed (any 64-bit unsigned integer).
template <typename T>
Keyword field(T LoaderOptions::*member, const char* needs) {
  const char* annotation = std::is_same_v<T, bool> ? "bool" : std::is_integral_v<T> ? "int" : "str";
  return {[member, needs](Parsed& p, const py::handle& v) {
            if constexpr (std::is_same_v<T, bool>) {
              if (!py::isinstance<py::bool_>(v)) throw WrongType{needs};
            } else if constexpr (std::is_integral_v<T>) {
              if (!is_int(v)) throw WrongType{needs};
              if (v.cast<py::int_>() < py::int_(0)) throw OutOfRange{"it must not be negative"};
            }
            try {
              p.options.loader.*member = v.cast<T>();
            } catch (const py::cast_error&) {
              if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                throw OutOfRange{"it is too large"};
              }
              throw WrongType{needs};
            }
          },
          annotation, default_of(member)};
}

// `keyword` whose default the loader derives: None, or a value of its type.
Keyword derived(Keyword keyword) {
  keyword.annotation = "Optional[" + keyword.annotation + "]";
  keyword.default_value = none;
  return keyword;
}

// A keyword read by a lambda of its own: its annotation and default given with it.
Keyword custom(Setter set, std::string annotation, std::function<py::object()> default_value) {
  return {std::move(set), std::move(annotation), std::move(default_value)};
}

template <typename T>
std::function<py::object()> value(T v) {
  return [v] { return py::cast(v); };
}

const std::map<std::string, Keyword>& keywords() {
  static const std::map<std::string, Keyword> table = {
      {"batch_size", bounded(&LoaderOptions::batch_size, "batch_size")},
      {"num_workers", bounded(&LoaderOptions::num_workers, "num_workers")},
      {"shuffle", custom(
                      [](Parsed& p, const py::handle& v) {
                        if (py::isinstance<py::bool_>(v)) {
                          p.options.loader.shuffle =
                              v.cast<bool>() ? ShuffleMode::kFull : ShuffleMode::kNone;
                        } else if (py::isinstance<py::str>(v)) {
                          p.options.loader.shuffle = parse_shuffle(v.cast<std::string>());
                        } else {
                          throw WrongType{"a bool or a str (full, blocks or none)"};
                        }
                      },
                      "Union[bool, " + literal(shuffle_names()) + "]",
                      value(defaults().shuffle == ShuffleMode::kFull))},
      {"shuffle_window_mb", bounded(&LoaderOptions::shuffle_window_mb, "shuffle_window_mb")},
      {"seed", field(&LoaderOptions::seed, "an int")},
      {"drop_last", field(&LoaderOptions::drop_last, "a bool")},
      // None (or -1 for the C++ Loader): RANK and WORLD_SIZE from the environment.
      {"rank", derived(bounded(&LoaderOptions::rank, "rank"))},
      {"world_size", derived(bounded(&LoaderOptions::world_size, "world_size"))},
      {"pad_shards", field(&LoaderOptions::pad_shards, "a bool")},
      {"on_bad",
       custom([](Parsed& p,
                 const py::handle& v) { p.options.loader.on_bad = parse_policy(word_of(v)); },
              literal(policy_names()), value(policy_name(defaults().on_bad)))},
      {"on_missing", custom(
                         [](Parsed& p, const py::handle& v) {
                           p.options.loader.on_missing = parse_policy(word_of(v), "on_missing");
                         },
                         literal(policy_names()), value(policy_name(defaults().on_missing)))},
      // What each batch holds after its images: a sequence of member names (a str alone is
      // refused: fields="txt" would read as t, x, t).
      {"fields", custom(
                     [](Parsed& p, const py::handle& v) {
                       p.options.loader.fields = strings(v, "(\"txt\", \"json\")");
                     },
                     "Sequence[str]", [] { return py::tuple(py::cast(defaults().fields)); })},
      {"image", field(&LoaderOptions::image, "a str")},
      // Detection (docs/detection.md): the annotation file or folder (str or os.PathLike).
      {"annotations",
       custom([](Parsed& p, const py::handle& v) { p.options.loader.annotations = py::str(v); },
              "Optional[Union[str, os.PathLike[str]]]", none)},
      // True: COCO's instance masks; a folder (str or os.PathLike): semantic label maps.
      {"masks", custom(
                    [](Parsed& p, const py::handle& v) {
                      if (py::isinstance<py::bool_>(v)) {
                        p.options.loader.masks = v.cast<bool>() ? kInstanceMasks : "";
                      } else {
                        p.options.loader.masks =
                            py::str(py::module_::import("os").attr("fspath")(v));
                      }
                    },
                    "Optional[Union[bool, str, os.PathLike[str]]]", none)},
      {"labels",
       custom([](Parsed& p,
                 const py::handle& v) { p.options.loader.labels = parse_label_mode(word_of(v)); },
              literal(label_mode_names()), value(label_mode_name(defaults().labels)))},
      {"targets", custom(
                      [](Parsed& p, const py::handle& v) {
                        p.options.targets = parse_word("targets", word_of(v), kTargetLayouts);
                      },
                      literal(texts_of(kTargetLayouts)),
                      value(name_of(PythonOptions{}.targets, kTargetLayouts)))},
      {"max_pixels", bounded(&LoaderOptions::max_pixels, "max_pixels")},
      // A str or a torch.device.
      {"device",
       custom([](Parsed& p, const py::handle& v) { p.options.loader.device = py::str(v); },
              "Union[str, Any]", default_of(&LoaderOptions::device))},
      {"training_images_per_s",
       bounded(&LoaderOptions::training_images_per_s, "training_images_per_s")},
      {"prefetch_batches", bounded(&LoaderOptions::prefetch_batches, "prefetch_batches")},
      {"memory_budget_mb", bounded(&LoaderOptions::memory_budget_mb, "memory_budget_mb")},
      {"io_queue_depth", bounded(&LoaderOptions::io_queue_depth, "io_queue_depth")},
      {"force_pread", field(&LoaderOptions::force_pread, "a bool")},
      {"direct_io", field(&LoaderOptions::direct_io, "a bool")},
      {"throttle", field(&LoaderOptions::throttle, "a str")},
      {"tar_chunk_bytes", bounded(&LoaderOptions::tar_chunk_bytes, "tar_chunk_bytes")},
      {"allow_paths_outside_root", field(&LoaderOptions::allow_paths_outside_root, "a bool")},
      {"allow_empty_classes", field(&LoaderOptions::allow_empty_classes, "a bool")},
      // The pack cache: a folder (str or os.PathLike); None: no cache.
      {"cache_dir",
       custom([](Parsed& p, const py::handle& v) { p.options.loader.cache_dir = py::str(v); },
              "Optional[Union[str, os.PathLike[str]]]", none)},
      {"cache_gb", bounded(&LoaderOptions::cache_gb, "cache_gb")},
      // The transform's keywords are collected, then applied to the spec (apply_transform).
      {"transform", custom(
                        [](Parsed& p, const py::handle& v) {
                          if (!py::isinstance<py::str>(v)) {
                            throw WrongType{
                                "a spec text (feedrate.Loader reads torchvision transforms into "
                                "one)"};
                          }
                          p.transform = v.cast<std::string>();
                          p.transform_given = true;
                        },
                        "str", value(kDefaultTransform))},
      {"size", custom([](Parsed& p, const py::handle& v) { p.size = integer(v, "size"); }, "int",
                      value(kDefaultSize))},
      {"resize", custom([](Parsed& p, const py::handle& v) { p.resize = integer(v, "resize"); },
                        "Optional[int]", none)},
      {"scale", custom([](Parsed& p, const py::handle& v) { p.scale = two_numbers(v, "scale"); },
                       "Optional[Tuple[float, float]]", none)},
      {"ratio", custom([](Parsed& p, const py::handle& v) { p.ratio = two_numbers(v, "ratio"); },
                       "Optional[Tuple[float, float]]", none)},
      {"flip_probability", custom(
                               [](Parsed& p, const py::handle& v) {
                                 p.flip_probability = number(v, option_bound("flip_probability"));
                               },
                               "Optional[float]", none)},
      // A word, a torch dtype or a numpy scalar type; None: as the transform says.
      {"dtype", custom(
                    [](Parsed& p, const py::handle& v) {
                      p.options.loader.layout = parse_layout(word_of(v), "dtype");
                      p.dtype_given = true;
                    },
                    "Optional[Union[" + literal(layout_names()) + ", Any]]", none)},
      {"mean", custom([](Parsed& p, const py::handle& v) { p.mean = three_numbers(v); },
                      "Optional[Sequence[float]]", none)},
      {"std", custom([](Parsed& p, const py::handle& v) { p.std = three_numbers(v); },
                     "Optional[Sequence[float]]", none)},
      {"arrays",
       custom(
           [](Parsed& p, const py::handle& v) {
             p.options.arrays = parse_word("arrays", word_of(v), kArrayKinds);
           },
           literal(texts_of(kArrayKinds)), value(name_of(PythonOptions{}.arrays, kArrayKinds)))},
      {"progress", custom(
                       [](Parsed& p, const py::handle& v) {
                         if (!py::isinstance<py::bool_>(v)) throw WrongType{"a bool"};
                         p.options.progress = v.cast<bool>();
                       },
                       "bool", value(PythonOptions{}.progress))},
      {"return_indices", custom(
                             [](Parsed& p, const py::handle& v) {
                               if (!py::isinstance<py::bool_>(v)) throw WrongType{"a bool"};
                               p.options.return_indices = v.cast<bool>();
                             },
                             "bool", value(PythonOptions{}.return_indices))},
  };
  return table;
}

std::string rgb_text(const std::array<float, 3>& values) {
  return "[" + std::to_string(values[0]) + ", " + std::to_string(values[1]) + ", " +
         std::to_string(values[2]) + "]";
}

// mean= or std= sets the transform's normalization, the run's one (decode/layout.h); a spec that
// names normalize with other values is a contradiction, not an override.
void normalize_with(const char* name, const std::optional<std::array<float, 3>>& given, bool named,
                    std::array<float, 3>& spec_values) {
  if (!given) return;
  if (named && *given != spec_values) {
    throw py::value_error(std::string("feedrate.Loader(): ") + name + "=" + rgb_text(*given) +
                          " differs from the transform's normalize(" + name + "=" +
                          rgb_text(spec_values) + "): give it in one place");
  }
  spec_values = *given;
}

// A detection dataset's transform (feedrate::parse_detection_transform): the spec text, or a
// stretching resize to size x size when none is given (feedrate.Loader's signature passes the
// classification default, "train", for none).
void apply_detection_transform(Parsed& p) {
  LoaderOptions& loader = p.options.loader;
  const std::string size = std::to_string(p.size);
  const bool given = p.transform_given && p.transform != kDefaultTransform;
  try {
    loader.detection =
        parse_detection_transform(given ? p.transform : "resize(" + size + "," + size + ")");
  } catch (const Error& e) {
    throw py::value_error(e.what());
  }
  DetectionSpec& spec = loader.detection;
  if (spec.normalize && !p.dtype_given && loader.layout == OutputLayout::kUint8NHWC) {
    loader.layout = OutputLayout::kFloat32NCHW;
  }
  if (p.resize || p.scale || p.ratio || p.flip_probability) {
    throw py::value_error(
        "feedrate.Loader(): resize, scale, ratio and flip_probability shape the classification "
        "transform; a detection transform (option annotations) takes its parameters in its "
        "steps");
  }
  normalize_with("mean", p.mean, spec.normalize, spec.normalization.mean);
  normalize_with("std", p.std, spec.normalize, spec.normalization.std);
  if (!loader.masks.empty() && p.options.targets == TargetLayout::kYolo) {
    throw py::value_error(
        "feedrate.Loader(): targets='yolo' is Ultralytics' detection batch, without masks: use "
        "targets='dicts' or 'flat' with masks=");
  }
}

// The spec text ("train", "eval", "rrc(176),ta_wide,...") with size, then the geometry
// keywords and the normalization on top of it.
void apply_transform(Parsed& p) {
  LoaderOptions& loader = p.options.loader;
  if (!loader.annotations.empty() || !loader.masks.empty()) {
    apply_detection_transform(p);
    return;
  }
  try {
    loader.transform = parse_transform(p.transform, p.size);
  } catch (const Error& e) {
    throw py::value_error(e.what());
  }
  TransformSpec& spec = loader.transform;
  // A spec naming normalize delivers floats unless a dtype says otherwise.
  if (spec.normalize && !p.dtype_given && loader.layout == OutputLayout::kUint8NHWC) {
    loader.layout = OutputLayout::kFloat32NCHW;
  }
  if (p.resize) spec.resize = *p.resize;
  if (p.scale) std::tie(spec.scale_min, spec.scale_max) = *p.scale;
  if (p.ratio) std::tie(spec.ratio_min, spec.ratio_max) = *p.ratio;
  if (p.flip_probability) spec.flip_probability = *p.flip_probability;
  normalize_with("mean", p.mean, spec.normalize, spec.normalization.mean);
  normalize_with("std", p.std, spec.normalize, spec.normalization.std);
}

}  // namespace

std::string option_names() {
  std::string names;
  for (const auto& [name, keyword] : keywords()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

py::dict option_table() {
  py::dict table;
  for (const auto& [name, keyword] : keywords()) {
    table[py::str(name)] = py::make_tuple(keyword.annotation, keyword.default_value());
  }
  return table;
}

PythonOptions parse_options(const py::object& source, const py::kwargs& kwargs) {
  Parsed parsed;
  parsed.options.loader.source = py::str(py::module_::import("os").attr("fspath")(source));
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key);
    const auto keyword = keywords().find(name);
    if (keyword == keywords().end()) {
      throw py::type_error("feedrate.Loader() got an unexpected keyword argument '" + name +
                           "'; known: " + option_names());
    }
    if (value.is_none()) continue;  // None keeps the default
    const std::string given = "feedrate.Loader(): " + name + "=" + std::string(py::repr(value));
    try {
      keyword->second.set(parsed, value);
    } catch (const WrongType& wrong) {
      throw py::type_error(given + " has the wrong type: " + name + " takes " + wrong.needs);
    } catch (const OutOfRange& range) {
      throw py::value_error(given + " is out of range: " + range.rule);
    } catch (const Error& e) {  // a word outside its option's vocabulary
      throw py::value_error(e.what());
    }
  }
  apply_transform(parsed);
  return parsed.options;
}

}  // namespace feedrate::python
