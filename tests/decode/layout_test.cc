// Tests for decode/layout: hwc_to_chw_normalized computes torchvision's ToTensor + Normalize,
// ((x / 255) - mean) / std, into R, G, B planes in that order.

#include "decode/layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace feedrate::decode {
namespace {

double expected_value(std::uint8_t x, double mean, double std) {
  return (x / 255.0 - mean) / std;
}

void check_against_formula(const std::vector<std::uint8_t>& hwc, const Normalization& n) {
  const std::size_t pixels = hwc.size() / 3;
  std::vector<float> chw(pixels * 3, -1000.0f);
  hwc_to_chw_normalized(hwc.data(), pixels, n, chw.data());
  for (int c = 0; c < 3; ++c) {
    for (std::size_t i = 0; i < pixels; ++i) {
      ASSERT_NEAR(chw[c * pixels + i], expected_value(hwc[3 * i + c], n.mean[c], n.std[c]), 1e-5)
          << "channel " << c << " pixel " << i << " value " << int{hwc[3 * i + c]};
    }
  }
}

TEST(HwcToChwNormalized, MatchesTheFormulaWithImageNetStatistics) {
  std::mt19937 gen(1);
  std::vector<std::uint8_t> hwc(3 * 1001);
  for (auto& v : hwc) v = static_cast<std::uint8_t>(gen() & 0xFF);
  // Every value in every channel, including 0 and 255.
  for (int i = 0; i < 256; ++i) {
    for (int c = 0; c < 3; ++c) hwc[3 * i + c] = static_cast<std::uint8_t>(i);
  }
  check_against_formula(hwc, Normalization{});
}

TEST(HwcToChwNormalized, MatchesTheFormulaWithOtherStatistics) {
  std::mt19937 gen(2);
  std::vector<std::uint8_t> hwc(3 * 777);
  for (auto& v : hwc) v = static_cast<std::uint8_t>(gen() & 0xFF);
  Normalization half;
  half.mean = {0.5f, 0.5f, 0.5f};
  half.std = {0.5f, 0.5f, 0.5f};
  check_against_formula(hwc, half);
  Normalization identity;
  identity.mean = {0.0f, 0.0f, 0.0f};
  identity.std = {1.0f, 1.0f, 1.0f};
  check_against_formula(hwc, identity);
  Normalization mixed;
  mixed.mean = {0.1f, 0.9f, 0.3f};
  mixed.std = {0.7f, 0.2f, 1.3f};
  check_against_formula(hwc, mixed);
}

TEST(HwcToChwNormalized, PlanesAreRedGreenBlue) {
  // Two pixels, (10, 20, 30) and (40, 50, 60), with mean 0 and std 1: values are x / 255.
  const std::vector<std::uint8_t> hwc = {10, 20, 30, 40, 50, 60};
  Normalization identity;
  identity.mean = {0, 0, 0};
  identity.std = {1, 1, 1};
  std::vector<float> chw(6);
  hwc_to_chw_normalized(hwc.data(), 2, identity, chw.data());
  const double expected[6] = {10, 40, 20, 50, 30, 60};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(chw[i], expected[i] / 255.0, 1e-6) << i;
  // Per-channel statistics go with their plane: a distinct mean per channel shifts each plane.
  Normalization shifted = identity;
  shifted.mean = {1, 2, 3};
  hwc_to_chw_normalized(hwc.data(), 2, shifted, chw.data());
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(chw[i], expected[i] / 255.0 - (1 + i / 2), 1e-5) << i;
}

TEST(HwcToChwNormalized, WritesExactlyThreePlanes) {
  const std::vector<std::uint8_t> hwc = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> chw(9 + 4, 12345.0f);
  hwc_to_chw_normalized(hwc.data(), 3, Normalization{}, chw.data());
  for (int i = 9; i < 13; ++i) EXPECT_EQ(chw[i], 12345.0f) << "wrote past the planes at " << i;
  std::vector<float> untouched(4, 7.0f);
  hwc_to_chw_normalized(hwc.data(), 0, Normalization{}, untouched.data());
  for (const float v : untouched) EXPECT_EQ(v, 7.0f);
}

}  // namespace
}  // namespace feedrate::decode
