// feedrate-augment-bench: the CPU cost of each augmentation operation per image, one thread,
// on a photograph-like size x size RGB image (default 176, the torchvision reference's train
// crop): each of the policy operations at a typical magnitude, the flips, grayscale,
// ColorJitter's four adjustments, the policies as a whole (TrivialAugmentWide, RandAugment,
// AutoAugment, averaged over seeds), Normalize to float CHW, RandomErasing, and the resize of a
// 500 x 375 source to the crop, bilinear and bicubic. Every operation starts from a fresh copy
// of the image; the copy's cost is measured on its own and subtracted.
//
// Each measurement runs for --seconds, --repeats times, the operations taking turns (in
// reverse order on every other repeat); the median is printed in microseconds per image.
//
// Usage: feedrate-augment-bench [--size S] [--seconds S] [--repeats N] [--json]
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "decode/augment.h"
#include "decode/augment_policy.h"
#include "decode/layout.h"
#include "decode/resize.h"
#include "decode/transform.h"
#include "decode/transform_text.h"

namespace {

using namespace feedrate;
using namespace feedrate::decode;
using Clock = std::chrono::steady_clock;

// Smooth gradients, edges and noise, as bench/datagen's photographs (deterministic).
std::vector<std::uint8_t> photo(int width, int height) {
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 3);
  Rng rng(1);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double base[3] = {200.0 * x / width, 180.0 * y / height,
                              60.0 + 100.0 * (x + y) / (width + height)};
      for (int c = 0; c < 3; ++c) {
        const double edge = (x < width / 3 && y < height / 2) ? 40 : 0;
        const double noise = 24 * (rng.uniform() - 0.5);
        pixels[(static_cast<std::size_t>(y) * width + x) * 3 + c] =
            static_cast<std::uint8_t>(std::clamp(base[c] + edge + noise, 0.0, 255.0));
      }
    }
  }
  return pixels;
}

struct Case {
  std::string name;
  std::function<void(std::uint64_t iteration)> run;  // on the working copy
  bool copies = true;  // starts from a fresh copy of the image (the copy is subtracted)
};

// Microseconds per call of `body` over about `seconds`.
double time_us(const std::function<void(std::uint64_t)>& body, double seconds) {
  std::uint64_t calls = 0;
  const auto start = Clock::now();
  const auto until = start + std::chrono::duration<double>(seconds);
  auto now = start;
  while (now < until) {
    for (int i = 0; i < 16; ++i) body(calls++);
    now = Clock::now();
  }
  return std::chrono::duration<double, std::micro>(now - start).count() /
         static_cast<double>(calls);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Cost of each augmentation operation per image (one thread)");
  int size = 176;
  double seconds = 0.3;
  int repeats = 5;
  bool json = false;
  app.add_option("--size", size, "Image side")->check(CLI::Range(16, 1024))->capture_default_str();
  app.add_option("--seconds", seconds, "Seconds per measurement")->capture_default_str();
  app.add_option("--repeats", repeats, "Measurements per operation (median)")
      ->check(CLI::Range(1, 101))
      ->capture_default_str();
  app.add_flag("--json", json, "JSON on stdout");
  CLI11_PARSE(app, argc, argv);

  const std::vector<std::uint8_t> base = photo(size, size);
  std::vector<std::uint8_t> work = base;
  std::vector<float> planes(base.size());
  const ImageView view{work.data(), size, size};
  AugmentScratch scratch;
  const std::array<double, 3> fill{0, 0, 0};
  const auto reset = [&] { std::memcpy(work.data(), base.data(), base.size()); };

  std::vector<Case> cases;
  const auto op_case = [&](const char* name, AugmentOp op, double magnitude) {
    cases.push_back({name, [&, op, magnitude](std::uint64_t) {
                       apply_augment_op(view, op, magnitude, fill, scratch);
                     }});
  };
  op_case("Identity", AugmentOp::kIdentity, 0);
  op_case("ShearX(0.3)", AugmentOp::kShearX, 0.3);
  op_case("ShearY(0.3)", AugmentOp::kShearY, 0.3);
  op_case("TranslateX(16)", AugmentOp::kTranslateX, 16);
  op_case("TranslateY(16)", AugmentOp::kTranslateY, 16);
  op_case("Rotate(30)", AugmentOp::kRotate, 30);
  op_case("Brightness(0.5)", AugmentOp::kBrightness, 0.5);
  op_case("Color(0.5)", AugmentOp::kColor, 0.5);
  op_case("Contrast(0.5)", AugmentOp::kContrast, 0.5);
  op_case("Sharpness(0.5)", AugmentOp::kSharpness, 0.5);
  op_case("Posterize(4)", AugmentOp::kPosterize, 4);
  op_case("Solarize(128)", AugmentOp::kSolarize, 128);
  op_case("AutoContrast", AugmentOp::kAutoContrast, 0);
  op_case("Equalize", AugmentOp::kEqualize, 0);
  op_case("Invert", AugmentOp::kInvert, 0);
  cases.push_back({"hflip", [&](std::uint64_t) { flip_horizontal(view); }});
  cases.push_back({"vflip", [&](std::uint64_t) { flip_vertical(view); }});
  cases.push_back({"grayscale", [&](std::uint64_t) { to_grayscale(view); }});
  cases.push_back({"hue(0.1)", [&](std::uint64_t) { adjust_hue(view, 0.1); }});
  // Whole steps drawn per seed, as the decode worker runs them.
  const auto spec_case = [&](const char* name, const char* text) {
    TransformSpec spec;
    if (const std::string problem = parse_transform(text, size, spec); !problem.empty()) {
      throw std::runtime_error(problem);
    }
    cases.push_back(
        {name, [&, spec](std::uint64_t i) { apply_pixel_steps(spec, mix64(i), view, scratch); }});
  };
  spec_case("jitter(0.4,0.4,0.4,0.1)", "train,jitter(0.4,0.4,0.4,0.1)");
  spec_case("jitter(0.4,0.4,0.4)", "train,jitter(0.4,0.4,0.4)");
  spec_case("ta_wide (per draw)", "train,ta_wide");
  spec_case("ra(2,9) (per draw)", "train,ra");
  spec_case("aa imagenet (per draw)", "train,aa");
  Normalization normalization;
  cases.push_back({"normalize (to float CHW)", [&](std::uint64_t) {
                     hwc_to_chw_normalized(work.data(), static_cast<std::size_t>(size) * size,
                                           normalization, planes.data());
                   }});
  EraseSpec erase;
  erase.p = 1;
  cases.push_back({"erase(p=1) on floats",
                   [&](std::uint64_t i) { erase_float_chw(erase, mix64(i), size, planes.data()); },
                   false});
  // The resize of a 500 x 375 source (an ImageNet-like size) to the crop, bilinear and bicubic.
  const std::vector<std::uint8_t> source = photo(500, 375);
  Resampler resampler;
  const auto resize_case = [&](const char* name, Interpolation interpolation) {
    cases.push_back({name,
                     [&, interpolation](std::uint64_t i) {
                       TransformSpec spec;
                       spec.size = size;
                       spec.interpolation = interpolation;
                       Rng rng(mix64(i));
                       resampler.prepare(plan_transform(spec, 500, 375, rng));
                       resampler.run(source.data(), 500 * 3, 0, 0, work.data());
                     },
                     false});
  };
  resize_case("rrc resize bilinear (500x375 source)", Interpolation::kBilinear);
  resize_case("rrc resize bicubic (500x375 source)", Interpolation::kBicubic);

  std::vector<std::vector<double>> samples(cases.size());
  std::vector<double> copy_samples;
  for (int r = 0; r < repeats; ++r) {
    copy_samples.push_back(time_us([&](std::uint64_t) { reset(); }, seconds));
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const std::size_t c = r % 2 == 0 ? k : cases.size() - 1 - k;
      const Case& item = cases[c];
      samples[c].push_back(time_us(
          [&](std::uint64_t i) {
            if (item.copies) reset();
            item.run(i);
          },
          seconds));
    }
  }
  const double copy_us = median(copy_samples);
  nlohmann::json out;
  out["size"] = size;
  out["copy_us"] = copy_us;
  if (!json) {
    fmt::print(
        "augmentation cost per {0}x{0} image, one thread, median of {1} x {2:.1f} s "
        "(image copy {3:.2f} us subtracted)\n",
        size, repeats, seconds, copy_us);
    fmt::print("{:<40} {:>10}\n", "operation", "us/image");
  }
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const double us = std::max(0.0, median(samples[c]) - (cases[c].copies ? copy_us : 0.0));
    out["ops"][cases[c].name] = us;
    if (!json) fmt::print("{:<40} {:>10.1f}\n", cases[c].name, us);
  }
  if (json) fmt::print("{}\n", out.dump(2));
  return 0;
}
