// DetectionTransformer against torchvision.transforms.v2 itself: fixtures/detection_cases.json
// and detection_*.bin, written by fixtures/make_detection_fixtures.py (a Compose of v2's
// detection transforms with each make_params fixed; the same draws go in through the Draws
// hook). Boxes within 0.01 px, labels (the kept indices) and masks exact. Pixels: exact where no
// step resamples (the photometric kernels, crops, pads, flips); after a resize, within the
// classification path's PIL-backend tolerance (torchvision_fixture_test.cc): mean absolute
// difference <= 0.25 per value, largest difference <= 1. v2 resizes a uint8 tensor with its
// fixed-point kernel (PIL's arithmetic), the Resampler in float32 (measured: worst mean 0.18,
// max 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
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

nlohmann::json cases() {
  std::ifstream in(kFixtures + "/detection_cases.json");
  EXPECT_TRUE(in) << "detection_cases.json is missing";
  return nlohmann::json::parse(in);
}

DetectionStep step_of(const nlohmann::json& j) {
  static const std::map<std::string, Kind> kinds{{"photometric", Kind::kPhotometricDistort},
                                                 {"zoom_out", Kind::kZoomOut},
                                                 {"iou_crop", Kind::kIouCrop},
                                                 {"hflip", Kind::kHorizontalFlip},
                                                 {"vflip", Kind::kVerticalFlip},
                                                 {"resize", Kind::kResize},
                                                 {"rrc", Kind::kRandomResizedCrop},
                                                 {"center_crop", Kind::kCenterCrop},
                                                 {"pad", Kind::kPad},
                                                 {"clamp", Kind::kClamp},
                                                 {"sanitize", Kind::kSanitize}};
  DetectionStep step;
  step.kind = kinds.at(j["kind"].get<std::string>());
  step.width = j.value("width", 0);
  step.height = j.value("height", 0);
  step.left = j.value("left", 0);
  step.top = j.value("top", 0);
  step.right = j.value("right", 0);
  step.bottom = j.value("bottom", 0);
  if (j.contains("fill")) step.fill = j["fill"].get<std::array<double, 3>>();
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
  return d;
}

TEST(DetectionFixture, StepsMatchTorchvisionV2) {
  const nlohmann::json doc = cases();
  const int width = doc["width"], height = doc["height"];
  const std::vector<std::vector<float>> input_boxes = doc["boxes"];
  const Bytes input = read_bytes("detection_input.bin");
  ASSERT_EQ(input.size(), static_cast<std::size_t>(width) * height * 3);
  ASSERT_GE(doc["cases"].size(), 8u);
  double worst_mean = 0;
  int worst_max = 0;
  for (const nlohmann::json& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    DetectionSpec spec;
    std::vector<DetectionTransformer::StepDraws> fixed;
    for (const nlohmann::json& s : c["steps"]) {
      spec.steps.push_back(step_of(s));
      fixed.push_back(s.contains("draws") ? draws_of(s["draws"])
                                          : DetectionTransformer::StepDraws{});
    }
    spec.size = c["out_width"];
    ASSERT_EQ(validate(spec), "");
    DetectionTargets targets;
    const std::size_t plane = static_cast<std::size_t>(width) * height;
    targets.masks.assign(plane * input_boxes.size(), 0);
    for (std::size_t i = 0; i < input_boxes.size(); ++i) {
      const auto& b = input_boxes[i];
      targets.boxes.insert(targets.boxes.end(), b.begin(), b.end());
      for (int y = static_cast<int>(b[1]); y < static_cast<int>(b[3]); ++y) {
        for (int x = static_cast<int>(b[0]); x < static_cast<int>(b[2]); ++x) {
          targets.masks[i * plane + static_cast<std::size_t>(y) * width + x] = 1;
        }
      }
    }
    targets.planes = static_cast<int>(input_boxes.size());
    Bytes image = input;
    Bytes out(static_cast<std::size_t>(spec.size) * spec.size * 3);
    DetectionTransformer transformer;
    transformer.run(spec, image, width, height, targets, 7, out,
                    [&](std::size_t i, DetectionTransformer::StepDraws& d) { d = fixed[i]; });

    const std::vector<std::vector<float>> boxes = c["boxes"];
    const std::vector<std::uint32_t> labels = c["labels"];
    EXPECT_EQ(targets.kept, labels);
    ASSERT_EQ(targets.boxes.size(), 4 * boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      for (int k = 0; k < 4; ++k) EXPECT_NEAR(targets.boxes[4 * i + k], boxes[i][k], 0.01);
    }
    const Bytes expected = read_bytes("detection_" + c["name"].get<std::string>() + ".bin");
    ASSERT_EQ(expected.size(), out.size() + targets.masks.size());
    double sum = 0;
    int max = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const int e = std::abs(static_cast<int>(out[i]) - static_cast<int>(expected[i]));
      sum += e;
      max = std::max(max, e);
    }
    const double mean = sum / static_cast<double>(out.size());
    const bool resamples = std::any_of(spec.steps.begin(), spec.steps.end(), [](auto& s) {
      return s.kind == Kind::kResize || s.kind == Kind::kRandomResizedCrop;
    });
    EXPECT_LE(mean, resamples ? 0.25 : 0.0);
    EXPECT_LE(max, resamples ? 1 : 0);
    worst_mean = std::max(worst_mean, mean);
    worst_max = std::max(worst_max, max);
    EXPECT_TRUE(std::equal(targets.masks.begin(), targets.masks.end(),
                           expected.begin() + static_cast<std::ptrdiff_t>(out.size())))
        << "masks differ";
  }
  std::cout << "detection fixtures: worst mean " << worst_mean << ", worst max " << worst_max
            << "\n";
}

}  // namespace
}  // namespace feedrate::decode
