// DetectionTransformer against its peers themselves, with the same draws through the Draws hook:
//   - torchvision.transforms.v2 (fixtures/detection_cases.json and detection_*.bin, written by
//     fixtures/make_detection_fixtures.py: a Compose of v2's detection transforms with each
//     make_params fixed), with one instance mask a box;
//   - Ultralytics (fixtures/ultralytics_cases.json and ultralytics_*.bin, written by
//     fixtures/make_ultralytics_fixtures.py: LetterBox, RandomHSV, RandomPerspective with their
//     draws fixed), with a semantic map;
//   - Ultralytics' BaseDataset.load_image and Mosaic (fixtures/ultralytics_mosaic.json and
//     ultralytics_load_*.bin, ultralytics_mosaic_*.bin, written by
//     fixtures/make_mosaic_fixtures.py: load_image itself, Mosaic with its centre fixed, then
//     RandomPerspective, RandomHSV, RandomFlip with their draws fixed) on four images.
// Boxes within 0.01 px, labels (the kept indices) and masks exact. Pixels: torchvision's exact
// where no step resamples (the photometric kernels, crops, pads, flips); after a resize within
// the classification path's PIL-backend tolerance (torchvision_fixture_test.cc): mean absolute
// difference <= 0.25 per value, largest difference <= 1, as v2 resizes a uint8 tensor with its
// fixed-point kernel (PIL's arithmetic) and the Resampler in float32 (measured: worst mean 0.21,
// max 1). Ultralytics' within mean 0.01, max 1: OpenCV's kernels are followed in their
// vectorised arithmetic, whose scalar tails of a row round differently (measured: worst mean
// 0.003, max 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "decode/detection_transform.h"

namespace feedrate::decode {
namespace {

using Bytes = std::vector<std::uint8_t>;
using Kind = DetectionStep::Kind;

const std::string kFixtures = FEEDRATE_DECODE_FIXTURES;

Bytes read_bytes(const std::string& name) {
  std::ifstream in(kFixtures + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << name;
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

nlohmann::json cases(const std::string& name) {
  std::ifstream in(kFixtures + "/" + name);
  EXPECT_TRUE(in) << name << " is missing";
  return nlohmann::json::parse(in);
}

// The kind whose text-form name (detection_step_name) is `name`.
Kind kind_of(const std::string& name) {
  for (int k = 0; k <= static_cast<int>(Kind::kMosaic); ++k) {
    if (name == detection_step_name(static_cast<Kind>(k))) return static_cast<Kind>(k);
  }
  ADD_FAILURE() << "unknown step " << name;
  return Kind::kClamp;
}

DetectionStep step_of(const nlohmann::json& j) {
  DetectionStep step;
  step.kind = kind_of(j["kind"].get<std::string>());
  step.width = j.value("width", 0);
  step.height = j.value("height", 0);
  step.max_size = j.value("max_size", 0);
  if (j.contains("min_sizes")) step.min_sizes = j["min_sizes"].get<std::vector<int>>();
  step.left = j.value("left", 0);
  step.top = j.value("top", 0);
  step.right = j.value("right", 0);
  step.bottom = j.value("bottom", 0);
  if (j.contains("fill")) step.fill = j["fill"].get<std::array<double, 3>>();
  if (j.value("bicubic", false)) step.interpolation = Interpolation::kBicubic;
  step.scaleup = j.value("scaleup", 1) != 0;
  step.center = j.value("center", 1) != 0;
  step.hgain = j.value("h", step.hgain);
  step.sgain = j.value("s", step.sgain);
  step.vgain = j.value("v", step.vgain);
  step.degrees = j.value("degrees", step.degrees);
  step.translate = j.value("translate", step.translate);
  step.perspective_scale = j.value("scale", step.perspective_scale);
  step.shear = j.value("shear", step.shear);
  step.perspective = j.value("perspective", step.perspective);
  return step;
}

DetectionTransformer::StepDraws draws_of(const nlohmann::json& j) {
  DetectionTransformer::StepDraws d;
  d.apply = j.value("apply", true);
  d.left = j.value("left", 0.0);
  d.top = j.value("top", 0.0);
  d.width = j.value("width", 0.0);
  d.height = j.value("height", 0.0);
  d.ratio = j.value("ratio", 1.0);
  d.u = j.value("u", 0.0);
  d.v = j.value("v", 0.0);
  d.do_brightness = j.value("do_brightness", false);
  d.do_contrast = j.value("do_contrast", false);
  d.do_saturation = j.value("do_saturation", false);
  d.do_hue = j.value("do_hue", false);
  d.brightness = j.value("brightness", 1.0);
  d.contrast = j.value("contrast", 1.0);
  d.saturation = j.value("saturation", 1.0);
  d.hue = j.value("hue", 0.0);
  d.contrast_before = j.value("contrast_before", true);
  if (j.contains("channels")) d.channels = j["channels"].get<std::array<int, 3>>();
  d.hgain = j.value("hgain", 0.0);
  d.sgain = j.value("sgain", 0.0);
  d.vgain = j.value("vgain", 0.0);
  if (j.contains("perspective")) d.perspective = j["perspective"].get<std::array<double, 9>>();
  d.perspective_scale = j.value("perspective_scale", 1.0);
  d.mosaic_x = j.value("mosaic_x", 0);
  d.mosaic_y = j.value("mosaic_y", 0);
  d.shortest = j.value("shortest", 0);
  return d;
}

// A case's spec (checked by validate()) and each step's fixed draws (the Rng's where the case
// fixes none).
DetectionSpec spec_of(const nlohmann::json& c,
                      std::vector<DetectionTransformer::StepDraws>& fixed) {
  DetectionSpec spec;
  for (const nlohmann::json& s : c["steps"]) {
    spec.steps.push_back(step_of(s));
    fixed.push_back(s.contains("draws") ? draws_of(s["draws"]) : DetectionTransformer::StepDraws{});
  }
  spec.size = c.value("varies", false) ? 0 : c["out_width"].get<int>();
  EXPECT_EQ(validate(spec), "");
  return spec;
}

// The mean and largest absolute difference of n bytes.
std::pair<double, int> difference(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  double sum = 0;
  int max = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int e = std::abs(static_cast<int>(a[i]) - static_cast<int>(b[i]));
    sum += e;
    max = std::max(max, e);
  }
  return {sum / static_cast<double>(n), max};
}

// The masks a peer moves: torchvision v2 one instance mask a box, Ultralytics a semantic map
// (the box index + 1 inside each box).
enum class Masks { kInstance, kSemantic };

// The worst pixel differences over the cases of `file`, each case checked: boxes, kept
// indices, masks; pixels within mean_limit / max_limit where the case resamples, exact where
// `exact_without_resampling` and it does not.
struct Worst {
  double mean = 0;
  int max = 0;
};

Worst check_cases(const std::string& file, const std::string& prefix, Masks masks,
                  double mean_limit, int max_limit, bool exact_without_resampling) {
  const nlohmann::json doc = cases(file);
  const int width = doc["width"], height = doc["height"];
  const std::vector<std::vector<float>> input_boxes = doc["boxes"];
  const Bytes input = read_bytes("detection_input.bin");
  EXPECT_EQ(input.size(), static_cast<std::size_t>(width) * height * 3);
  EXPECT_GE(doc["cases"].size(), 8u);
  Worst worst;
  for (const nlohmann::json& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    std::vector<DetectionTransformer::StepDraws> fixed;
    const DetectionSpec spec = spec_of(c, fixed);
    DetectionTargets targets;
    const std::size_t plane = static_cast<std::size_t>(width) * height;
    const bool semantic = masks == Masks::kSemantic;
    targets.semantic = semantic;
    targets.planes = semantic ? 1 : static_cast<int>(input_boxes.size());
    targets.masks.assign(plane * targets.planes, 0);
    for (std::size_t i = 0; i < input_boxes.size(); ++i) {
      const auto& b = input_boxes[i];
      targets.boxes.insert(targets.boxes.end(), b.begin(), b.end());
      for (int y = static_cast<int>(b[1]); y < static_cast<int>(b[3]); ++y) {
        for (int x = static_cast<int>(b[0]); x < static_cast<int>(b[2]); ++x) {
          const std::size_t at = static_cast<std::size_t>(y) * width + x;
          if (semantic) {
            targets.masks[at] = static_cast<std::uint8_t>(i + 1);
          } else {
            targets.masks[i * plane + at] = 1;
          }
        }
      }
    }
    Bytes image = input;
    Bytes out(static_cast<std::size_t>(spec.size) * spec.size * 3);
    DetectionTransformer transformer;
    const auto draws = [&](std::size_t i, DetectionTransformer::StepDraws& d) { d = fixed[i]; };
    const DetectionResult result =
        spec.varies() ? transformer.run_variable(spec, image, width, height, targets, 7, out, draws)
                      : transformer.run(spec, image, width, height, targets, 7, out, draws);
    EXPECT_EQ(result.width, c["out_width"].get<int>());
    EXPECT_EQ(result.height, c["out_height"].get<int>());

    const std::vector<std::vector<float>> boxes = c["boxes"];
    const std::vector<std::uint32_t> labels = c["labels"];
    EXPECT_EQ(targets.kept, labels);
    EXPECT_EQ(targets.boxes.size(), 4 * boxes.size());
    for (std::size_t i = 0; i < boxes.size() && 4 * i + 3 < targets.boxes.size(); ++i) {
      for (int k = 0; k < 4; ++k) EXPECT_NEAR(targets.boxes[4 * i + k], boxes[i][k], 0.01);
    }
    const Bytes expected = read_bytes(prefix + c["name"].get<std::string>() + ".bin");
    EXPECT_EQ(expected.size(), out.size() + targets.masks.size());
    if (expected.size() != out.size() + targets.masks.size()) continue;
    const auto [mean, max] = difference(out.data(), expected.data(), out.size());
    const bool exact =
        exact_without_resampling && std::none_of(spec.steps.begin(), spec.steps.end(), [](auto& s) {
          return s.kind == Kind::kResize || s.kind == Kind::kRandomResizedCrop ||
                 s.kind == Kind::kShortestSize;
        });
    EXPECT_LE(mean, exact ? 0.0 : mean_limit);
    EXPECT_LE(max, exact ? 0 : max_limit);
    worst.mean = std::max(worst.mean, mean);
    worst.max = std::max(worst.max, max);
    EXPECT_TRUE(std::equal(targets.masks.begin(), targets.masks.end(),
                           expected.begin() + static_cast<std::ptrdiff_t>(out.size())))
        << "masks differ";
  }
  return worst;
}

TEST(DetectionFixture, StepsMatchTorchvisionV2) {
  const Worst worst =
      check_cases("detection_cases.json", "detection_", Masks::kInstance, 0.25, 1, true);
  std::cout << "torchvision v2 fixtures: worst mean " << worst.mean << ", worst max " << worst.max
            << "\n";
}

TEST(DetectionFixture, StepsMatchUltralytics) {
  const Worst worst =
      check_cases("ultralytics_cases.json", "ultralytics_", Masks::kSemantic, 0.01, 1, false);
  std::cout << "Ultralytics fixtures: worst mean " << worst.mean << ", worst max " << worst.max
            << "\n";
}

// The four images of the mosaic fixtures in their original size, and their boxes.
struct MosaicInputs {
  std::vector<Bytes> images;
  std::vector<std::pair<int, int>> sizes;
  std::vector<std::vector<float>> boxes;
};

MosaicInputs mosaic_inputs(const nlohmann::json& doc) {
  MosaicInputs in;
  const Bytes rest = read_bytes("ultralytics_mosaic_inputs.bin");
  std::size_t at = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const auto [w, h] = doc["sizes"][i].get<std::pair<int, int>>();
    in.sizes.emplace_back(w, h);
    const std::size_t bytes = static_cast<std::size_t>(w) * h * 3;
    EXPECT_GE(rest.size(), at + bytes);
    const auto from = static_cast<std::ptrdiff_t>(std::min(at, rest.size()));
    const auto to = static_cast<std::ptrdiff_t>(std::min(at + bytes, rest.size()));
    in.images.emplace_back(rest.begin() + from, rest.begin() + to);
    at += bytes;
    in.boxes.emplace_back();
    for (const auto& b : doc["boxes"][i]) {
      for (float v : b.get<std::vector<float>>()) in.boxes.back().push_back(v);
    }
  }
  return in;
}

TEST(DetectionFixture, LoadImageMatchesUltralytics) {
  const nlohmann::json doc = cases("ultralytics_mosaic.json");
  const MosaicInputs in = mosaic_inputs(doc);
  Worst worst;
  for (const auto& [size_text, sizes] : doc["loaded"].items()) {
    SCOPED_TRACE(size_text);
    const Bytes expected = read_bytes("ultralytics_load_" + size_text + ".bin");
    std::size_t at = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      Bytes out;
      int w = 0, h = 0;
      std::vector<float> boxes = in.boxes[i];
      load_image(in.images[i], in.sizes[i].first, in.sizes[i].second, std::stoi(size_text), out, w,
                 h, boxes);
      EXPECT_EQ(w, sizes[i][0].get<int>());
      EXPECT_EQ(h, sizes[i][1].get<int>());
      ASSERT_EQ(out.size(), static_cast<std::size_t>(w) * h * 3);
      ASSERT_GE(expected.size(), at + out.size());
      const auto [mean, max] = difference(out.data(), expected.data() + at, out.size());
      at += out.size();
      EXPECT_LE(mean, 0.01);
      EXPECT_LE(max, 1);
      worst.mean = std::max(worst.mean, mean);
      worst.max = std::max(worst.max, max);
    }
    EXPECT_EQ(at, expected.size());
  }
  std::cout << "Ultralytics load_image fixtures: worst mean " << worst.mean << ", worst max "
            << worst.max << "\n";
}

TEST(DetectionFixture, MosaicMatchesUltralytics) {
  const nlohmann::json doc = cases("ultralytics_mosaic.json");
  const MosaicInputs in = mosaic_inputs(doc);
  const int imgsz = doc["imgsz"];
  // The boxes as load_image moves them; the pixels as Ultralytics' load_image gives them (an
  // HSV step turns load_image's differences of 1 into a few), so that the mosaic alone is
  // compared.
  const Bytes ultralytics_loaded = read_bytes("ultralytics_load_" + std::to_string(imgsz) + ".bin");
  std::vector<Bytes> loaded(4);
  std::vector<std::vector<float>> boxes = in.boxes;
  std::array<MosaicImage, 4> images;
  std::size_t at = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    load_image(in.images[i], in.sizes[i].first, in.sizes[i].second, imgsz, loaded[i],
               images[i].width, images[i].height, boxes[i]);
    ASSERT_GE(ultralytics_loaded.size(), at + loaded[i].size());
    std::copy_n(ultralytics_loaded.begin() + static_cast<std::ptrdiff_t>(at), loaded[i].size(),
                loaded[i].begin());
    at += loaded[i].size();
    images[i].pixels = loaded[i];
    images[i].boxes = boxes[i];
  }
  EXPECT_GE(doc["cases"].size(), 8u);
  Worst worst;
  DetectionTransformer transformer;
  for (const nlohmann::json& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    std::vector<DetectionTransformer::StepDraws> fixed;
    const DetectionSpec spec = spec_of(c, fixed);
    DetectionTargets targets;
    Bytes out(static_cast<std::size_t>(spec.size) * spec.size * 3);
    const DetectionResult result = transformer.run_mosaic(
        spec, images, targets, 7, out,
        [&](std::size_t i, DetectionTransformer::StepDraws& d) { d = fixed[i]; });
    EXPECT_EQ(result.width, spec.size);
    EXPECT_EQ(result.scale_x, 1);
    EXPECT_EQ(result.pad_x, 0);
    const std::vector<std::vector<float>> expected_boxes = c["boxes"];
    EXPECT_EQ(targets.kept, c["kept"].get<std::vector<std::uint32_t>>());
    ASSERT_EQ(targets.boxes.size(), 4 * expected_boxes.size());
    for (std::size_t i = 0; i < expected_boxes.size(); ++i) {
      for (int k = 0; k < 4; ++k) EXPECT_NEAR(targets.boxes[4 * i + k], expected_boxes[i][k], 0.01);
    }
    const Bytes expected =
        read_bytes("ultralytics_mosaic_" + c["name"].get<std::string>() + ".bin");
    ASSERT_EQ(expected.size(), out.size());
    const auto [mean, max] = difference(out.data(), expected.data(), out.size());
    EXPECT_LE(mean, 0.01);
    EXPECT_LE(max, 1);
    worst.mean = std::max(worst.mean, mean);
    worst.max = std::max(worst.max, max);
  }
  std::cout << "Ultralytics mosaic fixtures: worst mean " << worst.mean << ", worst max "
            << worst.max << "\n";
}

}  // namespace
}  // namespace feedrate::decode
