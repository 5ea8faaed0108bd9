// The TIFF, BMP and PNM variants beyond the baseline, built byte by byte here: tiled and
// planar TIFFs with every orientation, 16-bit gray and associated alpha; RLE and 16-bit BMPs;
// plain and 16-bit PNMs. Each decodes to the pixels PIL gives (the same rules that
// tests/python/test_pil_formats.py checks against PIL itself), and random corruption of each
// never crashes and always explains (this suite runs under ASan and UBSan in `make test-asan`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "decode/decoder.h"
#include "tests/support/image_bytes.h"

namespace feedrate::decode {
namespace {

using Bytes = std::vector<std::uint8_t>;
using test_images::make_bmp;
using test_images::make_tiff;
using test_images::TiffSpec;

std::vector<std::uint16_t> counting_samples(const TiffSpec& spec, int scale) {
  std::vector<std::uint16_t> samples(static_cast<std::size_t>(spec.width) * spec.height *
                                     spec.samples);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    samples[i] = static_cast<std::uint16_t>((i * 37 * scale) % (spec.bits == 16 ? 65536 : 256));
  }
  return samples;
}

Bytes decode(const Bytes& bytes, int& width, int& height) {
  Decoder decoder;
  Bytes rgb;
  const DecodeStatus status = decoder.decode_full(bytes, rgb);
  EXPECT_TRUE(status.ok()) << status.message;
  width = decoder.width();
  height = decoder.height();
  return rgb;
}

// The stored pixel that Pillow shows at (x, y) under each orientation.
std::pair<std::uint32_t, std::uint32_t> stored_at(int orientation, std::uint32_t x, std::uint32_t y,
                                                  std::uint32_t w, std::uint32_t h) {
  switch (orientation) {
    case 2:
      return {w - 1 - x, y};
    case 3:
      return {w - 1 - x, h - 1 - y};
    case 4:
      return {x, h - 1 - y};
    case 5:
      return {y, x};
    case 6:
      return {y, h - 1 - x};
    case 7:
      return {w - 1 - y, h - 1 - x};
    case 8:
      return {w - 1 - y, x};
    default:
      return {x, y};
  }
}

TEST(TiffVariants, TilesPlanesAndOrientationsGiveTheStoredPixelsTurnedAsPillowTurnsThem) {
  for (const std::uint32_t tile : {0u, 16u}) {
    for (const std::uint16_t planar : {1, 2}) {
      for (int orientation = 1; orientation <= 8; ++orientation) {
        TiffSpec spec;
        spec.width = 19;
        spec.height = 21;
        spec.tile = tile;
        spec.planar = planar;
        spec.orientation = static_cast<std::uint16_t>(orientation);
        const std::vector<std::uint16_t> samples = counting_samples(spec, 1);
        int w = 0, h = 0;
        const Bytes rgb = decode(make_tiff(spec, samples), w, h);
        SCOPED_TRACE(testing::Message()
                     << "tile " << tile << " planar " << planar << " orientation " << orientation);
        const bool swap = orientation >= 5;
        ASSERT_EQ(w, static_cast<int>(swap ? spec.height : spec.width));
        ASSERT_EQ(h, static_cast<int>(swap ? spec.width : spec.height));
        for (int y = 0; y < h; ++y) {
          for (int x = 0; x < w; ++x) {
            const auto [sx, sy] = stored_at(orientation, x, y, spec.width, spec.height);
            for (int c = 0; c < 3; ++c) {
              ASSERT_EQ(rgb[(static_cast<std::size_t>(y) * w + x) * 3 + c],
                        samples[(static_cast<std::size_t>(sy) * spec.width + sx) * 3 + c])
                  << x << "," << y;
            }
          }
        }
      }
    }
  }
}

TEST(TiffVariants, SixteenBitGrayIsClippedAndAssociatedAlphaDividedOut) {
  TiffSpec gray;
  gray.samples = 1;
  gray.photometric = 1;
  gray.bits = 16;
  gray.tile = 16;
  const std::vector<std::uint16_t> levels = {0,   1,   200, 255, 256, 1000, 65535, 7,
                                             300, 254, 9,   10,  11,  12,   13};
  int w = 0, h = 0;
  Bytes rgb = decode(make_tiff(gray, levels), w, h);
  ASSERT_EQ(rgb.size(), levels.size() * 3);
  for (std::size_t i = 0; i < levels.size(); ++i) {
    EXPECT_EQ(rgb[3 * i], std::min<int>(levels[i], 255)) << i;
  }
  TiffSpec rgba;
  rgba.samples = 4;
  rgba.extra = 1;  // associated alpha
  std::vector<std::uint16_t> samples(5 * 3 * 4);
  const int alphas[] = {0, 1, 128, 255, 200};
  for (std::size_t p = 0; p < 15; ++p) {
    const int a = alphas[p % 5];
    for (int c = 0; c < 3; ++c) samples[4 * p + c] = static_cast<std::uint16_t>(a * (c + 1) / 4);
    samples[4 * p + 3] = static_cast<std::uint16_t>(a);
  }
  samples[4 * 1] = 1;  // a colour above its alpha of 1: clipped to 255
  rgb = decode(make_tiff(rgba, samples), w, h);
  for (std::size_t p = 0; p < 15; ++p) {
    const int a = alphas[p % 5];
    for (int c = 0; c < 3; ++c) {
      const int expected = a == 0 ? 0 : std::min(255, samples[4 * p + c] * 255 / a);
      EXPECT_EQ(rgb[3 * p + c], expected) << p << " " << c;
    }
  }
}

TEST(BmpVariants, RleAndSixteenBitDecodeAsPillowReadsThem) {
  // RLE8, 4 x 2, bottom-up: row 0 (the bottom) is 3 x index 5 then 1 x index 9, end of line;
  // row 1 a run of 7 clipped to the 4 pixels left; end of bitmap.
  const Bytes rle8 = {3, 5, 1, 9, 0, 0, 7, 6, 0, 1};
  int w = 0, h = 0;
  Bytes rgb = decode(make_bmp(4, 2, 8, 1, rle8, 16), w, h);
  ASSERT_EQ(w, 4);
  ASSERT_EQ(h, 2);
  auto colour = [](int i) { return std::vector<int>{255 - i, 2 * i, i}; };
  const int indices[2][4] = {{6, 6, 6, 6}, {5, 5, 5, 9}};  // top row first
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 4; ++x) {
      const std::vector<int> expected = colour(indices[y][x]);
      for (int c = 0; c < 3; ++c) EXPECT_EQ(rgb[(y * 4 + x) * 3 + c], expected[c]) << x << y;
    }
  }
  // 16 bits: 5-5-5, each field scaled by 255 / 31 and truncated.
  const Bytes words = {0xFF, 0x7F, 0x00, 0x00, 0x21, 0x04, 0x00, 0x00};  // 2 pixels + pad, 1 row
  rgb = decode(make_bmp(2, 1, 16, 0, Bytes(words.begin(), words.begin() + 4), 0), w, h);
  EXPECT_EQ(rgb, (Bytes{255, 255, 255, 0, 0, 0}));
  rgb = decode(make_bmp(1, 1, 16, 0, Bytes{0x21, 0x04, 0, 0}, 0), w, h);
  EXPECT_EQ(rgb, (Bytes{8, 8, 8}));  // each field 1: 255 / 31 = 8
}

TEST(PnmVariants, PlainBitmapsAndWideMaxvalsScaleAsPillowDoes) {
  auto bytes = [](const std::string& s) { return Bytes(s.begin(), s.end()); };
  int w = 0, h = 0;
  EXPECT_EQ(decode(bytes("P1\n3 1\n1 0\n1"), w, h), (Bytes{0, 0, 0, 255, 255, 255, 0, 0, 0}));
  // maxval 2: 1 -> round(127.5) = 128 (half to even); 2 -> 255.
  EXPECT_EQ(decode(bytes("P3 1 1 2\n0 1 2"), w, h), (Bytes{0, 128, 255}));
  // A PGM above 255 is scaled to 65535, then clipped: 1 of 1000 -> 66 -> 66; 4 -> 262 -> 255.
  EXPECT_EQ(decode(bytes("P2 2 1 1000 1 4"), w, h), (Bytes{66, 66, 66, 255, 255, 255}));
  Bytes wide = bytes("P5 2 1 65535\n");
  wide.insert(wide.end(), {0x00, 0xC8, 0x01, 0x00});  // 200, 256
  EXPECT_EQ(decode(wide, w, h), (Bytes{200, 200, 200, 255, 255, 255}));
  Bytes bitmap = bytes("P4\n9 1\n");
  bitmap.insert(bitmap.end(), {0xA0, 0x80});  // 1 0 1 0 0 0 0 0 | 1
  const Bytes rgb = decode(bitmap, w, h);
  ASSERT_EQ(rgb.size(), 27u);
  EXPECT_EQ(rgb[0], 0);
  EXPECT_EQ(rgb[3], 255);
  EXPECT_EQ(rgb[6], 0);
  EXPECT_EQ(rgb[24], 0);
}

TEST(FormatVariants, RandomCorruptionNeverCrashesAndAlwaysExplains) {
  TiffSpec tiled;
  tiled.width = 19;
  tiled.height = 21;
  tiled.tile = 16;
  tiled.planar = 2;
  tiled.orientation = 6;
  TiffSpec gray16;
  gray16.samples = 1;
  gray16.photometric = 1;
  gray16.bits = 16;
  const std::vector<Bytes> files = {
      make_tiff(tiled, counting_samples(tiled, 3)), make_tiff(gray16, counting_samples(gray16, 5)),
      make_bmp(4, 2, 8, 1, {3, 5, 0, 3, 9, 9, 9, 0, 0, 0, 7, 6, 0, 2, 1, 1, 0, 1}, 16),
      make_bmp(5, 3, 4, 2, {5, 0x12, 0, 0, 0, 4, 0x56, 0x78, 0, 2, 1, 0, 2, 3, 0, 1}, 16),
      Bytes{'P', '2', ' ', '3', ' ', '2', ' ', '9', '0', '0', ' ', '1',
            ' ', '2', ' ', '3', ' ', '4', ' ', '5', ' ', '8', '9', '9'}};
  std::mt19937 random(17);
  Decoder decoder;
  Bytes rgb;
  for (const Bytes& file : files) {
    ASSERT_TRUE(decoder.decode_full(file, rgb).ok());
    for (int trial = 0; trial < 300; ++trial) {
      Bytes bad = file;
      const int flips = 1 + static_cast<int>(random() % 4);
      for (int k = 0; k < flips; ++k) {
        bad[random() % bad.size()] ^= static_cast<std::uint8_t>(1 + random() % 255);
      }
      if (random() % 4 == 0) bad.resize(random() % bad.size());
      const DecodeStatus status = decoder.decode_full(bad, rgb);
      EXPECT_TRUE(status.ok() || !status.message.empty()) << errc_name(status.code);
      if (status.ok()) {
        EXPECT_EQ(rgb.size(), static_cast<std::size_t>(decoder.width()) * decoder.height() * 3);
      }
    }
  }
}

}  // namespace
}  // namespace feedrate::decode
