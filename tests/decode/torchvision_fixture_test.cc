// decode/ against torchvision: fixtures written by tests/decode/fixtures/make_fixtures.py
// (torchvision 0.14 on PIL's decode of the same stored JPEGs) hold torchvision's output for
// given RandomResizedCrop boxes (F.resized_crop + hflip) and for Resize + CenterCrop, from both
// of its backends: the PIL image (PIL's antialiased bilinear, what an ImageFolder pipeline
// runs) and the uint8 tensor with antialias=True. The train boxes go through decode_full and
// the Resampler with that box; eval goes through ImageDecoder::decode (ROI decode included).
//
// Tolerance, per fixture: mean absolute difference per channel and the largest difference.
//   PIL backend: mean <= 0.25, max <= 1. PIL filters horizontally first, rounds to uint8
//   between its two passes and uses 22-bit fixed-point weights; feedrate keeps floats between
//   passes, so about one value in five differs by 1 (measured: worst mean 0.19, max 1).
//   tensor backend: mean <= 0.05, max <= 1. torchvision's kernel computes in float and rounds
//   once, as feedrate does (measured: worst mean 0.002, max 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "decode/image_decoder.h"
#include "decode/resize.h"
#include "decode/transform.h"

namespace feedrate::decode {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

const fs::path kFixtures = FEEDRATE_DECODE_FIXTURES;

Bytes read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

struct Fixture {
  std::string output, jpeg, kind, backend;
  int top = 0, left = 0, height = 0, width = 0, size = 0, resize = 0, flip = 0;
};

std::vector<Fixture> manifest() {
  std::ifstream in(kFixtures / "manifest.txt");
  EXPECT_TRUE(in.good()) << "cannot read " << kFixtures / "manifest.txt";
  std::vector<Fixture> fixtures;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Fixture f;
    fields >> f.output >> f.jpeg >> f.kind >> f.backend >> f.top >> f.left >> f.height >> f.width >>
        f.size >> f.resize >> f.flip;
    EXPECT_FALSE(fields.fail()) << "bad manifest line: " << line;
    fixtures.push_back(f);
  }
  return fixtures;
}

// torchvision's resized_crop(top, left, height, width, [size, size]) as a plan: the box is
// the crop, resized to size x size, all of it delivered, the filter confined to the crop.
ResizePlan crop_plan(const Fixture& f) {
  ResizePlan plan;
  plan.box_x = f.left;
  plan.box_y = f.top;
  plan.box_w = f.width;
  plan.box_h = f.height;
  plan.out_w = plan.out_h = plan.win_w = plan.win_h = f.size;
  plan.clip_x0 = f.left;
  plan.clip_y0 = f.top;
  plan.clip_x1 = f.left + f.width;
  plan.clip_y1 = f.top + f.height;
  plan.flip = f.flip != 0;
  return plan;
}

Bytes feedrate_output(const Fixture& f) {
  const Bytes jpeg = read_bytes(kFixtures / f.jpeg);
  ImageDecoder decoder;
  Bytes out(static_cast<std::size_t>(f.size) * f.size * 3);
  if (f.kind == "eval") {
    TransformSpec spec;
    spec.kind = TransformKind::kEval;
    spec.size = f.size;
    spec.resize = f.resize;
    const DecodeStatus status = decoder.decode(jpeg, spec, 0, out);
    EXPECT_TRUE(status.ok()) << f.jpeg << ": " << status.message;
    return out;
  }
  Bytes rgb;
  const DecodeStatus status = decoder.decode_full(jpeg, rgb);
  EXPECT_TRUE(status.ok()) << f.jpeg << ": " << status.message;
  if (!status.ok()) return out;
  Resampler resampler;
  resampler.prepare(crop_plan(f));
  resampler.run(rgb.data(), static_cast<std::size_t>(decoder.info().width) * 3, 0, 0, out.data());
  return out;
}

TEST(Torchvision, ResizedCropAndResizeMatchTheFixtures) {
  const std::vector<Fixture> fixtures = manifest();
  ASSERT_GE(fixtures.size(), 40u);
  double worst_mean[2] = {0, 0};
  int worst_max[2] = {0, 0};
  for (const Fixture& f : fixtures) {
    SCOPED_TRACE(f.output);
    const Bytes expected = read_bytes(kFixtures / f.output);
    const Bytes actual = feedrate_output(f);
    ASSERT_EQ(expected.size(), actual.size());
    double sum[3] = {0, 0, 0};
    int max = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
      const int e = std::abs(static_cast<int>(actual[i]) - static_cast<int>(expected[i]));
      sum[i % 3] += e;
      max = std::max(max, e);
    }
    const bool pil = f.backend == "pil";
    const double pixels = static_cast<double>(actual.size() / 3);
    for (int c = 0; c < 3; ++c) {
      const double mean = sum[c] / pixels;
      EXPECT_LE(mean, pil ? 0.25 : 0.05) << "channel " << c;
      worst_mean[pil] = std::max(worst_mean[pil], mean);
    }
    EXPECT_LE(max, 1);
    worst_max[pil] = std::max(worst_max[pil], max);
  }
  std::cout << "against torchvision on PIL images: worst per-channel mean abs diff "
            << worst_mean[1] << ", worst max " << worst_max[1]
            << "; on tensors (antialias=True): " << worst_mean[0] << ", " << worst_max[0] << "\n";
}

}  // namespace
}  // namespace feedrate::decode
