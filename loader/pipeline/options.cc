#include "feedrate/options.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "decode/transform_text.h"
#include "feedrate/error.h"
#include "gpu/device.h"
#include "io/throttle.h"

namespace feedrate {
namespace {

template <typename T>
void check_range(const char* name, T value, T low, T high) {
  if (value < low || value > high) {
    throw Error("option " + std::string(name) + " must be in [" + std::to_string(low) + ", " +
                std::to_string(high) + "], got " + std::to_string(value));
  }
}

constexpr std::array<Word<OutputLayout>, 3> kLayouts{{{"uint8", OutputLayout::kUint8NHWC},
                                                      {"float32", OutputLayout::kFloat32NCHW},
                                                      {"float16", OutputLayout::kFloat16NCHW}}};
constexpr std::array<Word<BadInputPolicy>, 2> kPolicies{
    {{"error", BadInputPolicy::kError}, {"skip", BadInputPolicy::kSkip}}};
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
  const decode::TransformSpec& spec = options.transform;
  const bool floats = options.layout != OutputLayout::kUint8NHWC;
  if (spec.normalize) {
    if (!floats) {
      throw Error(
          "option transform: normalize needs a float layout (float32 or float16), not uint8");
    }
    options.normalization = {spec.normalize_mean, spec.normalize_std};
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

}  // namespace

LoaderOptions resolve(LoaderOptions options) {
  if (options.rank < 0) options.rank = from_environment("RANK", 0);
  if (options.world_size < 0) options.world_size = from_environment("WORLD_SIZE", 1);
  if (options.source.empty()) throw Error("option source must name a dataset");
  check_range<std::size_t>("batch_size", options.batch_size, 1, 65536);
  check_range("num_workers", options.num_workers, 0, 1024);
  check_range("world_size", options.world_size, 1, 1'000'000);
  check_range("rank", options.rank, 0, options.world_size - 1);
  check_range<std::size_t>("prefetch_batches", options.prefetch_batches, 1, 1024);
  check_range<unsigned>("io_queue_depth", options.io_queue_depth, 1, 4096);
  check_range<std::size_t>("shuffle_window_mb", options.shuffle_window_mb, 1, 1 << 20);
  if (options.shuffle == ShuffleMode::kBlocks && options.tar_chunk_bytes == 0) {
    throw Error("option shuffle blocks cuts storage blocks of tar_chunk_bytes: it must be > 0");
  }
  check_range<std::uint64_t>("max_pixels", options.max_pixels, 1, std::uint64_t{1} << 40);
  if (options.on_warning != decode::WarningPolicy::kAccept &&
      options.on_warning != decode::WarningPolicy::kReject) {
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
  if (!(options.cache_gb >= 0) || options.cache_gb > 1e9) {
    throw Error("option cache_gb must be in [0, 1e9] GB, got " + std::to_string(options.cache_gb));
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
  for (int c = 0; c < 3; ++c) {
    if (!(options.normalization.std[c] > 0)) {
      throw Error("option normalization.std must be > 0 for every channel");
    }
  }
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

BadInputPolicy parse_policy(std::string_view text) {
  return parse_word("on_bad", text, kPolicies);
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

std::string transform_problem(const std::string& text) {
  decode::TransformSpec spec;
  return decode::parse_transform(text, 224, spec);
}

decode::TransformSpec parse_transform(std::string_view text, int size) {
  decode::TransformSpec spec;
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
