#include "feedrate/options.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "decode/detection_text.h"
#include "decode/detection_transform.h"
#include "decode/transform_text.h"
#include "feedrate/error.h"
#include "feedrate/fields.h"
#include "gpu/device.h"
#include "io/remote/url.h"
#include "io/throttle.h"
#include "loader/pipeline/option_bounds.h"

namespace feedrate {
namespace {

// A remote source's io_queue_depth is its GETs in flight: the fetcher keeps at most this many
// (io/remote/range_fetcher.h's max_in_flight).
constexpr unsigned kMostRemoteRequests = 1024;

// An integer as digits ("65536"), another number as %g ("0.001").
std::string number_text(double value) {
  if (std::nearbyint(value) == value && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

template <typename T>
void check_range(const char* name, T value, T low, T high) {
  if (value < low || value > high) {
    throw Error("option " + std::string(name) + " must be in [" + number_text(low) + ", " +
                number_text(high) + "], got " + number_text(value));
  }
}

constexpr std::array<Word<OutputLayout>, 3> kLayouts{{{"uint8", OutputLayout::kUint8NHWC},
                                                      {"float32", OutputLayout::kFloat32NCHW},
                                                      {"float16", OutputLayout::kFloat16NCHW}}};
constexpr std::array<Word<BadInputPolicy>, 2> kPolicies{
    {{"error", BadInputPolicy::kError}, {"skip", BadInputPolicy::kSkip}}};
constexpr std::array<Word<LabelMode>, 3> kLabelModes{{{"category_id", LabelMode::kCategoryId},
                                                      {"contiguous", LabelMode::kContiguous},
                                                      {"zero_based", LabelMode::kZeroBased}}};
constexpr std::array<Word<ShuffleMode>, 3> kShuffleModes{
    {{"full", ShuffleMode::kFull}, {"blocks", ShuffleMode::kBlocks}, {"none", ShuffleMode::kNone}}};

int from_environment(const char* variable, int fallback) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1'000'000) {
    throw Error(std::string("environment variable ") + variable +
                " must be a non-negative integer, got '" + text + "'");
  }
  return static_cast<int>(value);
}

// The transform's output stage against the layout and device (issue: augmentations).
void check_transform_output(LoaderOptions& options, const gpu::Device& device) {
  const TransformSpec& spec = options.transform;
  const bool floats = options.layout != OutputLayout::kUint8NHWC;
  if (spec.normalize) {
    if (!floats) {
      throw Error(
          "option transform: normalize needs a float layout (float32 or float16), not uint8");
    }
  }
  if (spec.erase.p > 0 && spec.erase.random_value && !floats) {
    throw Error(
        "option transform: erase(value=random) draws normal values: it needs a float layout");
  }
  if (spec.erase.p > 0 && floats && device.is_cuda()) {
    throw Error(
        "option transform: erase on float batches converted on the GPU is not supported: "
        "run RandomErasing on the GPU after loading, or deliver uint8");
  }
}

// The transform's geometry against the table; decode::validate() then checks how its fields
// relate (scale_min <= scale_max, eval's resize >= size) and the pixel steps.
void check_transform_bounds(const TransformSpec& spec) {
  check_option("size", spec.size);
  if (spec.kind == TransformKind::kEval) check_option("resize", spec.resize);
  check_option("scale", spec.scale_min);
  check_option("scale", spec.scale_max);
  check_option("ratio", spec.ratio_min);
  check_option("ratio", spec.ratio_max);
  check_option("flip_probability", spec.flip_probability);
}

// A detection dataset's transform is options.detection (decode/detection_transform.h); the
// classification transform becomes its output stage only (the size the batch's buffers hold,
// and the normalization of float layouts), so that every stage sized by it is sized right.
// Such a sample's fields are its targets: cls means nothing there, and only __key__ is added.
void resolve_detection(LoaderOptions& options) {
  if (options.annotations.empty() && options.masks.empty()) return;
  if (options.masks == kInstanceMasks && options.annotations.empty()) {
    throw Error(
        "option masks: instance masks are rasterized from a COCO json's segmentations: "
        "give it as option annotations");
  }
  const DetectionSpec& detection = options.detection;
  if (const std::string problem = decode::validate(detection); !problem.empty()) {
    throw Error("option transform: " + problem);
  }
  // Sizes that vary: the batch's buffers hold the bound, rounded up as a batch's size is; without
  // a bound from the steps, 1 until the loader opens the dataset and bounds them by its largest
  // image (detection_buffer_size, loader/pipeline/pipeline.cc).
  const decode::StepsSize bound = decode::steps_size(detection.steps);
  const int size = !detection.varies() ? detection.size
                   : bound.bounded     ? padded_size(std::max(bound.max_width, bound.max_height))
                                       : 1;
  check_option("size", size);
  TransformSpec output;
  output.size = size;
  output.resize = size;
  output.flip_probability = 0;
  output.normalize = detection.normalize;
  output.normalization = detection.normalization;
  options.transform = output;
  if (options.fields == std::vector<std::string>{"cls"}) options.fields.clear();
  for (const FieldSpec& field : parse_fields(options.fields)) {
    if (field.kind != FieldKind::kKey) {
      throw Error(
          "option fields: a detection dataset (option annotations) delivers its boxes "
          "and labels as targets, and of the fields only __key__, not '" +
          field.entry + "'");
    }
  }
}

}  // namespace

const OptionBound& option_bound(std::string_view name) {
  for (const OptionBound& bound : kOptionBounds) {
    if (bound.name == name) return bound;
  }
  throw std::invalid_argument("no option bound named " + std::string(name));
}

std::string range_text(const OptionBound& bound) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on "(" + std::string.
  std::string text = bound.low_open ? "(" : "[";
  text += number_text(bound.low);
  text += ", ";
  text += number_text(bound.high);
  text += "]";
  return text;
}

bool in_range(const OptionBound& bound, double value) {
  const bool above_low = bound.low_open ? value > bound.low : value >= bound.low;
  return above_low && value <= bound.high && (!bound.integral || std::nearbyint(value) == value);
}

void check_option(std::string_view name, double value) {
  const OptionBound& bound = option_bound(name);
  if (bound.integral && std::nearbyint(value) != value) {
    throw Error("option " + std::string(name) + " must be an integer, got " + number_text(value));
  }
  if (!in_range(bound, value)) {
    throw Error("option " + std::string(name) + " must be in " + range_text(bound) + ", got " +
                number_text(value));
  }
}

LoaderOptions resolve(LoaderOptions options) {
  if (options.rank < 0) options.rank = from_environment("RANK", 0);
  if (options.world_size < 0) options.world_size = from_environment("WORLD_SIZE", 1);
  if (options.source.empty()) throw Error("option source must name a dataset");
  check_option("batch_size", static_cast<double>(options.batch_size));
  check_option("num_workers", options.num_workers);
  check_option("world_size", options.world_size);
  check_option("rank", options.rank);
  check_range("rank", options.rank, 0, options.world_size - 1);
  check_option("prefetch_batches", static_cast<double>(options.prefetch_batches));
  check_option("memory_budget_mb", static_cast<double>(options.memory_budget_mb));
  check_option("io_queue_depth", options.io_queue_depth);
  if (io::is_url(options.source) && options.io_queue_depth > kMostRemoteRequests) {
    throw Error("option io_queue_depth must be in [1, " + std::to_string(kMostRemoteRequests) +
                "] for a remote source (" + options.source + "): it is the GETs kept in flight, " +
                "got " + std::to_string(options.io_queue_depth));
  }
  check_option("shuffle_window_mb", static_cast<double>(options.shuffle_window_mb));
  check_option("tar_chunk_bytes", static_cast<double>(options.tar_chunk_bytes));
  if (options.shuffle == ShuffleMode::kBlocks && options.tar_chunk_bytes == 0) {
    throw Error("option shuffle blocks cuts storage blocks of tar_chunk_bytes: it must be > 0");
  }
  check_option("max_pixels", static_cast<double>(options.max_pixels));
  check_option("training_images_per_s", options.training_images_per_s);
  resolve_detection(options);
  check_transform_bounds(options.transform);
  if (options.on_warning != WarningPolicy::kAccept &&
      options.on_warning != WarningPolicy::kReject) {
    throw Error("option on_warning must be accept or reject, got " +
                std::to_string(static_cast<int>(options.on_warning)));
  }
  if (const std::string problem = decode::validate(options.transform); !problem.empty()) {
    throw Error("option transform: " + problem);
  }
  if (!options.throttle.empty()) {
    try {
      io::parse_throttle(options.throttle);
    } catch (const std::invalid_argument& e) {
      throw Error(std::string("option throttle: ") + e.what());
    }
  }
  check_option("cache_gb", options.cache_gb);
  parse_fields(options.fields);
  parse_image_members(options.image);
  if (options.on_missing != BadInputPolicy::kError && options.on_missing != BadInputPolicy::kSkip) {
    throw Error("option on_missing must be error or skip, got " +
                std::to_string(static_cast<int>(options.on_missing)));
  }
  gpu::Device device;
  try {
    device = gpu::parse_device(options.device);
  } catch (const std::invalid_argument& e) {
    throw Error(std::string("option ") + e.what());
  }
  if (options.layout == OutputLayout::kFloat16NCHW && !device.is_cuda()) {
    throw Error("option layout float16-nchw needs a CUDA device (option device), got " +
                options.device);
  }
  check_transform_output(options, device);
  return options;
}

void throw_not_one_of(std::string_view option, std::string_view text,
                      const std::vector<std::string>& allowed) {
  std::string message =
      "option " + std::string(option) + ": '" + std::string(text) + "' is not one of ";
  for (std::size_t i = 0; i < allowed.size(); ++i) message += (i > 0 ? ", " : "") + allowed[i];
  throw Error(message);
}

std::vector<std::string> layout_names() {
  return texts_of(kLayouts);
}

OutputLayout parse_layout(std::string_view text, std::string_view option) {
  return parse_word(option, text, kLayouts);
}

std::vector<std::string> policy_names() {
  return texts_of(kPolicies);
}

BadInputPolicy parse_policy(std::string_view text, std::string_view option) {
  return parse_word(option, text, kPolicies);
}

const char* policy_name(BadInputPolicy policy) {
  return name_of(policy, kPolicies);
}

std::vector<std::string> shuffle_names() {
  return texts_of(kShuffleModes);
}

ShuffleMode parse_shuffle(std::string_view text) {
  return parse_word("shuffle", text, kShuffleModes);
}

const char* shuffle_name(ShuffleMode mode) {
  return name_of(mode, kShuffleModes);
}

std::vector<std::string> label_mode_names() {
  return texts_of(kLabelModes);
}

LabelMode parse_label_mode(std::string_view text) {
  return parse_word("labels", text, kLabelModes);
}

const char* label_mode_name(LabelMode mode) {
  return name_of(mode, kLabelModes);
}

DetectionSpec parse_detection_transform(std::string_view text) {
  DetectionSpec spec;
  if (std::string problem = decode::parse_detection_transform(text, spec); !problem.empty()) {
    throw Error("option transform: " + problem);
  }
  return spec;
}

std::string transform_problem(const std::string& text) {
  TransformSpec spec;
  return decode::parse_transform(text, 224, spec);
}

TransformSpec parse_transform(std::string_view text, int size) {
  TransformSpec spec;
  if (std::string problem = decode::parse_transform(text, size, spec); !problem.empty()) {
    throw Error("option transform: " + problem);
  }
  return spec;
}

const char* layout_name(OutputLayout layout) {
  switch (layout) {
    case OutputLayout::kUint8NHWC:
      return "uint8-nhwc";
    case OutputLayout::kFloat32NCHW:
      return "float32-nchw";
    case OutputLayout::kFloat16NCHW:
      return "float16-nchw";
  }
  return "unknown";
}

}  // namespace feedrate
