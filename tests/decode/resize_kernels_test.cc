// Tests for decode/resize_kernels: every instruction set's kernels give the same floats and the
// same bytes as the baseline kernels on random rows, tap counts, weights, widths and flips, so
// a seed's output does not depend on the CPU, and the Resampler runs the fastest set. The
// comparisons skip where this CPU lacks AVX2.

#include "decode/resize_kernels.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "decode/resize.h"

namespace feedrate::decode::kernels {
namespace {

std::vector<float> random_weights(std::mt19937_64& gen, int count) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<float> weights(static_cast<std::size_t>(count));
  float total = 0;
  for (float& w : weights) total += w = unit(gen);
  for (float& w : weights) w /= total;
  return weights;
}

TEST(ResizeKernels, TheResamplerRunsTheFastestSetThisCpuHas) {
  const std::string expected = avx2() != nullptr ? "avx2" : baseline().name;
  EXPECT_EQ(best().name, expected);
  EXPECT_EQ(Resampler::kernels(), expected);
}

TEST(ResizeKernels, Avx2VerticalSumsEqualTheBaselines) {
  const RowKernels* fast = avx2();
  if (fast == nullptr) GTEST_SKIP() << "no AVX2 on this CPU or in this build";
  std::mt19937_64 gen(11);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int trial = 0; trial < 300; ++trial) {
    const int taps = std::uniform_int_distribution<int>(1, 16)(gen);
    const int count = std::uniform_int_distribution<int>(1, 800)(gen);
    const std::size_t stride = static_cast<std::size_t>(count) + (trial % 7);
    std::vector<std::uint8_t> rows(stride * taps);
    for (auto& v : rows) v = static_cast<std::uint8_t>(byte(gen));
    const std::vector<float> weights = random_weights(gen, taps);
    std::vector<float> expected(static_cast<std::size_t>(count)), got(expected.size());
    baseline().vertical(rows.data(), stride, weights.data(), taps, count, expected.data());
    fast->vertical(rows.data(), stride, weights.data(), taps, count, got.data());
    ASSERT_EQ(std::memcmp(expected.data(), got.data(), got.size() * sizeof(float)), 0)
        << "taps " << taps << " count " << count;
  }
}

TEST(ResizeKernels, Avx2HorizontalRowsEqualTheBaselines) {
  const RowKernels* fast = avx2();
  if (fast == nullptr) GTEST_SKIP() << "no AVX2 on this CPU or in this build";
  std::mt19937_64 gen(12);
  std::uniform_real_distribution<float> value(-2.0f, 258.0f);  // also exercises the saturation
  for (int trial = 0; trial < 300; ++trial) {
    const int taps = std::uniform_int_distribution<int>(1, 9)(gen);
    const int width = std::uniform_int_distribution<int>(1, 300)(gen);
    const bool flip = trial % 2 == 1;
    // Pixel i starts at a non-decreasing source pixel, as the Resampler's taps do.
    std::vector<int> offsets(static_cast<std::size_t>(width));
    int source = 0;
    for (int& offset : offsets) {
      source += std::uniform_int_distribution<int>(0, 2)(gen);
      offset = 3 * source;
    }
    const std::size_t floats = static_cast<std::size_t>(offsets.back() + 3 * taps + 1);
    std::vector<float> a(floats), b(floats), weights;
    for (float& v : a) v = value(gen);
    for (float& v : b) v = value(gen);
    for (int i = 0; i < width; ++i) {
      const std::vector<float> w = random_weights(gen, taps);
      weights.insert(weights.end(), w.begin(), w.end());
    }
    const std::size_t bytes = static_cast<std::size_t>(width) * 3;
    std::vector<std::uint8_t> expected_a(bytes), expected_b(bytes), got_a(bytes), got_b(bytes);
    baseline().horizontal_pair(a.data(), b.data(), offsets.data(), weights.data(), taps, width,
                               flip, expected_a.data(), expected_b.data());
    fast->horizontal_pair(a.data(), b.data(), offsets.data(), weights.data(), taps, width, flip,
                          got_a.data(), got_b.data());
    ASSERT_EQ(got_a, expected_a) << "taps " << taps << " width " << width << " flip " << flip;
    ASSERT_EQ(got_b, expected_b) << "taps " << taps << " width " << width << " flip " << flip;
    std::vector<std::uint8_t> single(bytes);
    fast->horizontal(a.data(), offsets.data(), weights.data(), taps, width, flip, single.data());
    ASSERT_EQ(single, expected_a) << "taps " << taps << " width " << width << " flip " << flip;
  }
}

}  // namespace
}  // namespace feedrate::decode::kernels
