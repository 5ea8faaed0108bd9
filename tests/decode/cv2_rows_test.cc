// Tests for decode/cv2_rows: every instruction set's kernels give the same bytes as the portable
// ones (RandomHSV over all 2^24 colours, the two-tap rows and the vertical blends on random
// rows), so an augmentation does not depend on the CPU, and cv2::hsv_lut runs the fastest set.
// The comparisons skip where this CPU lacks AVX2.

#include "decode/cv2_rows.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "decode/cv2_kernels.h"

namespace feedrate::decode::cv2::rows {
namespace {

// Every RGB colour once, packed.
std::vector<std::uint8_t> all_colours() {
  std::vector<std::uint8_t> pixels(std::size_t{3} << 24);
  for (std::size_t i = 0; i < (std::size_t{1} << 24); ++i) {
    pixels[i * 3] = static_cast<std::uint8_t>(i >> 16);
    pixels[i * 3 + 1] = static_cast<std::uint8_t>(i >> 8);
    pixels[i * 3 + 2] = static_cast<std::uint8_t>(i);
  }
  return pixels;
}

TEST(Cv2Rows, TheFastestSetThisCpuHasRuns) {
  const std::string expected = avx2() != nullptr ? "avx2" : baseline().name;
  EXPECT_EQ(best().name, expected);
}

TEST(Cv2Rows, GainTablesAreFloatProductsButWhereOneRoundsAcrossAWhole) {
  EXPECT_TRUE(hsv_tables(0.0123, 0.4567, -0.2345).float_gains);
  // 100 * 0.7 is 69.99999999999999 in float64 (69), 70 in float.
  EXPECT_FALSE(hsv_tables(0.01, 0.5, -0.3).float_gains);
}

TEST(Cv2Rows, HueTablesAreTurnsButWhereAFractionRoundsAcrossAUnit) {
  // 0.01 * 180 = 1.8: every entry is x + 1 mod 180.
  EXPECT_EQ(hsv_tables(0.01, 0, 0).hue_turn, 1);
  EXPECT_EQ(hsv_tables(-0.01, 0, 0).hue_turn, 178);
  // -1.8e-17 + 180 rounds to 180: entry 0 is 180, no turn.
  EXPECT_EQ(hsv_tables(-1e-19, 0, 0).hue_turn, -1);
}

TEST(Cv2Rows, Avx2HsvEqualsTheBaselineOnEveryColour) {
  const Kernels* fast = avx2();
  if (fast == nullptr) GTEST_SKIP() << "no AVX2 on this CPU or in this build";
  const std::vector<std::uint8_t> colours = all_colours();
  // Ultralytics' default gains' extremes, saturation and value clamped at 0 and 255, a large
  // hue shift; hue tables that are turns or not, with gains whose float products truncate as
  // the tables or not.
  const double gains[][3] = {{0.015, 0.7, 0.4},  {-0.015, -0.7, -0.4}, {0.5, -1, 1},
                             {-1e-19, 0.2, 0.1}, {-1e-19, 0.5, -0.3},  {0.0123, 0.4567, -0.2345}};
  for (const auto& g : gains) {
    const HsvTables tables = hsv_tables(g[0], g[1], g[2]);
    std::vector<std::uint8_t> expected = colours, got = colours;
    // An odd count: the AVX2 kernel's last pixels go through the baseline.
    const std::size_t count = colours.size() / 3 - 5;
    baseline().hsv(expected.data(), count, tables);
    fast->hsv(got.data(), count, tables);
    ASSERT_EQ(expected, got) << "gains " << g[0] << " " << g[1] << " " << g[2];
  }
}

TEST(Cv2Rows, Avx2PairsEqualTheBaselines) {
  const Kernels* fast = avx2();
  if (fast == nullptr) GTEST_SKIP() << "no AVX2 on this CPU or in this build";
  std::mt19937_64 gen(21);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int trial = 0; trial < 300; ++trial) {
    const int line_pixels = std::uniform_int_distribution<int>(2, 1500)(gen);
    const int pixels = std::uniform_int_distribution<int>(1, 900)(gen);
    std::vector<std::uint8_t> line(static_cast<std::size_t>(line_pixels) * 3 + 2);
    for (auto& v : line) v = static_cast<std::uint8_t>(byte(gen));
    // The warp's 1/32 weights or the resize's 11-bit ones (shifted by 4 to fit int16), a
    // pixel's channels alike.
    const int one = trial % 2 == 0 ? 32 : 2048, shift = trial % 2 == 0 ? 0 : 4;
    std::uniform_int_distribution<int> at(0, line_pixels - 2), fraction(0, one);
    std::vector<int> offsets(static_cast<std::size_t>(pixels));
    std::vector<std::uint32_t> weights(offsets.size() * 3);
    for (int x = 0; x < pixels; ++x) {
      offsets[x] = at(gen) * 3;
      const int w1 = fraction(gen);
      for (int c = 0; c < 3; ++c)
        weights[x * 3 + c] = static_cast<std::uint32_t>((one - w1) | w1 << 16);
    }
    std::vector<std::int16_t> expected(weights.size()), got(weights.size());
    baseline().pairs(line.data(), offsets.data(), weights.data(), pixels, shift, expected.data());
    fast->pairs(line.data(), offsets.data(), weights.data(), pixels, shift, got.data());
    ASSERT_EQ(expected, got) << "pixels " << pixels;
  }
}

TEST(Cv2Rows, Avx2VerticalBlendsEqualTheBaselines) {
  const Kernels* fast = avx2();
  if (fast == nullptr) GTEST_SKIP() << "no AVX2 on this CPU or in this build";
  std::mt19937_64 gen(22);
  for (int trial = 0; trial < 300; ++trial) {
    const int count = std::uniform_int_distribution<int>(1, 2000)(gen);
    const bool warp = trial % 2 == 0;
    // The horizontal passes' ranges: 255 times the weights' sum (the resize's shifted by 4).
    std::uniform_int_distribution<int> value(0, warp ? 255 * 32 : 255 * 128);
    std::vector<std::int16_t> top(static_cast<std::size_t>(count)), bottom(top.size());
    for (auto& v : top) v = static_cast<std::int16_t>(value(gen));
    for (auto& v : bottom) v = static_cast<std::int16_t>(value(gen));
    std::vector<std::uint8_t> expected(top.size()), got(top.size());
    if (warp) {
      const int ay = std::uniform_int_distribution<int>(0, 32)(gen);
      baseline().warp_vertical(top.data(), bottom.data(), ay, count, expected.data());
      fast->warp_vertical(top.data(), bottom.data(), ay, count, got.data());
    } else {
      const int b1 = std::uniform_int_distribution<int>(0, 2048)(gen);
      baseline().resize_vertical(top.data(), bottom.data(), 2048 - b1, b1, count, expected.data());
      fast->resize_vertical(top.data(), bottom.data(), 2048 - b1, b1, count, got.data());
    }
    ASSERT_EQ(expected, got) << "count " << count;
  }
}

TEST(Cv2Rows, HsvLutRunsTheTablesOfItsGains) {
  // cv2.cvtColor of pure red (H 0, S 255, V 255) with the hue turned by 1.8 units (to 1) and
  // the value halved: HSV2RGB's h = 1 * 6 / 180 = 1/30, sector 0: r = v, g = v (1 - s (1 - f)),
  // b = v (1 - s), truncated: (127, 4, 0).
  std::vector<std::uint8_t> red(3 * 9);
  for (std::size_t i = 0; i < red.size(); i += 3) red[i] = 255;
  hsv_lut(ImageView{red.data(), 9, 1}, 0.01, 0, -0.5);
  for (std::size_t i = 0; i < red.size(); i += 3) {
    EXPECT_EQ(red[i], 127);
    EXPECT_EQ(red[i + 1], 4);
    EXPECT_EQ(red[i + 2], 0);
  }
}

TEST(Cv2Rows, AnImageOnePixelWideResizesToItsColumnRepeated) {
  // Each output row reads its source row's 8 bytes from the pixel on: past the image's end for
  // the last two rows, which resize_linear reads from a padded copy (ASan checks the reads).
  constexpr int kHeight = 5, kWidth = 16;
  std::vector<std::uint8_t> column(3 * kHeight);
  for (std::size_t i = 0; i < column.size(); ++i) column[i] = static_cast<std::uint8_t>(40 * i);
  std::vector<std::uint8_t> out(3 * kWidth * kHeight);
  resize_linear(ImageView{column.data(), 1, kHeight}, ImageView{out.data(), kWidth, kHeight});
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(out[(y * kWidth + x) * 3 + c], column[y * 3 + c]) << x << "," << y;
      }
    }
  }
}

}  // namespace
}  // namespace feedrate::decode::cv2::rows
