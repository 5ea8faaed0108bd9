// Tests for packed JPEGs (decode/restart_index, decode/jpeg_pack): the lossless transcode keeps
// every pixel; the sub-stream of any rectangle decodes the rectangle's pixels exactly as a decode
// of the whole original does, for 4:2:0, 4:2:2, 4:4:4, grayscale, CMYK and progressive sources
// of sizes that end inside an MCU, at K = 1, 2 and 4 MCUs per restart interval; the train and eval
// paths give the same bytes on packed and original files while reading fewer entropy-coded bytes,
// DCT-scaled crops included; K keeps the index within one segment on large images; a damaged
// index or scan is refused.

#include "decode/restart_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench/datagen/datagen.h"
#include "decode/image_decoder.h"
#include "decode/jpeg_pack.h"
#include "decode/pack_choice.h"
#include "decode/transform.h"

namespace feedrate::decode {
namespace {

using datagen::ColorKind;
using datagen::Subsampling;
using Bytes = std::vector<std::uint8_t>;

struct Variant {
  const char* name;
  ColorKind color;
  Subsampling subsampling;
  bool progressive;
};

constexpr Variant kVariants[] = {
    {"rgb420", ColorKind::kRgb, Subsampling::k420, false},
    {"rgb422", ColorKind::kRgb, Subsampling::k422, false},
    {"rgb444", ColorKind::kRgb, Subsampling::k444, false},
    {"gray", ColorKind::kGray, Subsampling::k420, false},
    {"cmyk", ColorKind::kCmyk, Subsampling::k420, false},
    {"cmyk444", ColorKind::kCmyk, Subsampling::k444, false},
    {"progressive420", ColorKind::kRgb, Subsampling::k420, true},
};

// Sizes on and off the MCU grid, wide and tall, and one with MCU columns prime (one interval
// per MCU row).
constexpr std::pair<int, int> kSizes[] = {{500, 375}, {333, 251}, {97, 45}, {37 * 16, 40}};

Bytes make(const Variant& v, int width, int height, std::uint64_t seed) {
  datagen::JpegSpec spec;
  spec.width = width;
  spec.height = height;
  spec.color = v.color;
  spec.subsampling = v.subsampling;
  spec.progressive = v.progressive;
  const std::vector<unsigned char> jpeg = datagen::make_jpeg(seed, spec);
  return Bytes(jpeg.begin(), jpeg.end());
}

Bytes pack(const Bytes& jpeg, int mcus_per_interval = kTargetMcusPerInterval) {
  JpegPacker packer({}, mcus_per_interval);
  Bytes out;
  const DecodeStatus status = packer.pack(jpeg, out);
  EXPECT_TRUE(status.ok()) << status.message;
  return out;
}

Bytes full(ImageDecoder& decoder, const Bytes& jpeg) {
  Bytes rgb;
  const DecodeStatus status = decoder.decode_full(jpeg, rgb);
  EXPECT_TRUE(status.ok()) << status.message;
  return rgb;
}

TEST(RestartIndex, ChoosesADivisorNearTheTarget) {
  EXPECT_EQ(choose_mcus_per_interval(32, 24, 4), 4);
  EXPECT_EQ(choose_mcus_per_interval(24, 24, 4), 4);
  EXPECT_EQ(choose_mcus_per_interval(25, 24, 4), 5);
  EXPECT_EQ(choose_mcus_per_interval(6, 24, 4), 3);
  EXPECT_EQ(choose_mcus_per_interval(37, 24, 4), 37);  // prime: one interval per MCU row
  EXPECT_EQ(choose_mcus_per_interval(1, 24, 4), 1);
  EXPECT_EQ(choose_mcus_per_interval(37, 24, 1), 1);  // one MCU per interval: any image
  EXPECT_EQ(choose_mcus_per_interval(32, 24), kTargetMcusPerInterval);
  for (int target : {1, 2, 4}) {
    for (int columns = 1; columns < 200; ++columns) {
      EXPECT_EQ(columns % choose_mcus_per_interval(columns, 24, target), 0) << columns;
    }
  }
}

TEST(RestartIndex, LargeImagesGetFewerIntervalsThanTheIndexCanHold) {
  // 4288 x 2848 at 4:2:0: 268 x 178 MCUs, 47,704 at K = 1, more than kMaxIntervals.
  const int k = choose_mcus_per_interval(268, 178, 1);
  EXPECT_EQ(k, 2);
  EXPECT_LE(178 * (268 / k), kMaxIntervals);
  // Too many MCU rows for any K under the cap: one interval per MCU row.
  EXPECT_EQ(choose_mcus_per_interval(30, kMaxIntervals + 1, 1), 30);
  for (int columns = 1; columns < 300; columns += 7) {
    const int chosen = choose_mcus_per_interval(columns, 300, 1);
    EXPECT_EQ(columns % chosen, 0);
    EXPECT_TRUE(300 * (columns / chosen) <= kMaxIntervals || chosen == columns) << columns;
  }
}

TEST(RestartIndex, PlainJpegHasNone) {
  const Bytes jpeg = make(kVariants[0], 96, 72, 1);
  RestartIndex index;
  bool found = true;
  EXPECT_TRUE(read_restart_index(jpeg, index, found).ok());
  EXPECT_FALSE(found);
}

class PackedVariant : public ::testing::TestWithParam<Variant> {};

TEST_P(PackedVariant, LosslessAndEveryRectangleExact) {
  const Variant& v = GetParam();
  ImageDecoder decoder;
  std::mt19937 rng(7);
  for (const auto& [width, height] : kSizes) {
    for (int k : {1, 2, 4}) {
      SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height) + ", K " +
                   std::to_string(k));
      const Bytes original = make(v, width, height, 11);
      const Bytes packed = pack(original, k);
      const Bytes reference = full(decoder, original);
      ASSERT_EQ(full(decoder, packed), reference) << "transcode changed pixels";
      RestartIndex index;
      bool found = false;
      ASSERT_TRUE(read_restart_index(packed, index, found).ok());
      ASSERT_TRUE(found);
      EXPECT_EQ(index.width, width);
      EXPECT_EQ(index.height, height);
      EXPECT_EQ(index.mcus_per_interval,
                choose_mcus_per_interval(index.mcu_columns, index.mcu_rows, k));
      Bytes sub_stream, sub_rgb;
      for (int trial = 0; trial < 40; ++trial) {
        int x0 = static_cast<int>(rng() % width), x1 = static_cast<int>(rng() % width);
        int y0 = static_cast<int>(rng() % height), y1 = static_cast<int>(rng() % height);
        if (trial == 0) x0 = y0 = 0, x1 = width - 1, y1 = height - 1;     // the whole image
        if (trial == 1) x0 = width - 1, y0 = height - 1, x1 = 0, y1 = 0;  // bottom-right corner
        if (x0 > x1) std::swap(x0, x1);
        if (y0 > y1) std::swap(y0, y1);
        ++x1, ++y1;
        if (trial % 4 == 2) {  // sides on the MCU grid: the upsampling margin matters
          const int w = index.mcu_width, h = index.mcu_height;
          x0 -= x0 % w, y0 -= y0 % h;
          x1 = std::min(width, (x1 + w - 1) / w * w), y1 = std::min(height, (y1 + h - 1) / h * h);
        }
        const McuRect rect = covering_rect(index, x0, y0, x1, y1);
        const SubImage sub = sub_image_of(index, rect);
        ASSERT_LE(sub.x, x0);
        ASSERT_LE(sub.y, y0);
        ASSERT_GE(sub.x + sub.width, x1);
        ASSERT_GE(sub.y + sub.height, y1);
        ASSERT_TRUE(build_substream(packed, index, rect, sub_stream).ok());
        ASSERT_TRUE(decoder.decode_full(sub_stream, sub_rgb).ok());
        ASSERT_EQ(decoder.info().width, sub.width);
        ASSERT_EQ(decoder.info().height, sub.height);
        for (int y = y0; y < y1; ++y) {
          const auto* want = &reference[(static_cast<std::size_t>(y) * width + x0) * 3];
          const auto* got =
              &sub_rgb[(static_cast<std::size_t>(y - sub.y) * sub.width + (x0 - sub.x)) * 3];
          ASSERT_TRUE(std::equal(want, want + (x1 - x0) * 3, got))
              << "row " << y << " of [" << x0 << ", " << x1 << ") x [" << y0 << ", " << y1 << ")";
        }
      }
    }
  }
}

TEST_P(PackedVariant, TrainAndEvalGiveTheSameBytesReadingLess) {
  const Variant& v = GetParam();
  const Bytes original = make(v, 500, 375, 3);
  ImageDecoder decoder;
  for (int k : {1, 4}) {
    for (TransformKind kind : {TransformKind::kTrain, TransformKind::kEval}) {
      SCOPED_TRACE("K " + std::to_string(k));
      const Bytes packed = pack(original, k);
      TransformSpec spec;
      spec.kind = kind;
      Bytes want(224 * 224 * 3), got(224 * 224 * 3);
      std::uint64_t scan = 0, read = 0;
      for (std::uint64_t seed = 0; seed < 60; ++seed) {
        ASSERT_TRUE(decoder.decode(original, spec, seed, want).ok());
        EXPECT_FALSE(decoder.info().packed);
        const DecodeStatus status = decoder.decode(packed, spec, seed, got);
        ASSERT_TRUE(status.ok()) << status.message;
        ASSERT_TRUE(decoder.info().packed);
        ASSERT_EQ(got, want) << "seed " << seed;
        scan += decoder.info().scan_bytes;
        read += decoder.info().scan_bytes_read;
      }
      if (kind == TransformKind::kTrain) {
        EXPECT_LT(read, scan * 3 / 4);
      }
    }
  }
}

// On a larger image the decoder picks DCT scaling (1/2, 1/4) for many crops: the sub-stream is
// decoded at the same scale, with the same bytes out.
TEST(RestartIndex, DctScaledCropsGiveTheSameBytes) {
  const Bytes original = make(kVariants[0], 1800, 1200, 9);
  const Bytes packed = pack(original);
  ImageDecoder decoder;
  for (TransformKind kind : {TransformKind::kTrain, TransformKind::kEval}) {
    TransformSpec spec;
    spec.kind = kind;
    Bytes want(224 * 224 * 3), got(224 * 224 * 3);
    int scaled = 0;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
      ASSERT_TRUE(decoder.decode(original, spec, seed, want).ok());
      const int denom = decoder.info().scale_denom;
      const DecodeStatus status = decoder.decode(packed, spec, seed, got);
      ASSERT_TRUE(status.ok()) << status.message;
      ASSERT_TRUE(decoder.info().packed);
      ASSERT_EQ(decoder.info().scale_denom, denom);
      ASSERT_EQ(got, want) << "seed " << seed << ", scale 1/" << denom;
      scaled += denom > 1;
    }
    EXPECT_GT(scaled, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, PackedVariant, ::testing::ValuesIn(kVariants),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(RestartIndex, TruncatedPackedJpegIsRefused) {
  const Bytes packed = pack(make(kVariants[0], 500, 375, 5));
  const Bytes cut(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(packed.size() / 2));
  ImageDecoder decoder;
  Bytes out(224 * 224 * 3);
  const DecodeStatus status = decoder.decode(cut, TransformSpec{}, 1, out);
  EXPECT_EQ(status.code, DecodeErrc::kTruncated) << status.message;
}

TEST(RestartIndex, MisplacedRestartMarkerIsRefused) {
  Bytes packed = pack(make(kVariants[0], 500, 375, 5));
  RestartIndex index;
  bool found = false;
  ASSERT_TRUE(read_restart_index(packed, index, found).ok());
  // Turn every restart marker into stuffed data: the index no longer matches the scan.
  for (std::size_t i = 1; i < index.starts.size(); ++i) {
    packed[index.scan_start + index.starts[i] - 1] = 0x00;
  }
  Bytes out;
  const DecodeStatus status = build_substream(packed, index, McuRect{4, 4, 8, 8}, out);
  EXPECT_EQ(status.code, DecodeErrc::kCorrupt);
  EXPECT_NE(status.message.find("RST"), std::string::npos) << status.message;
}

TEST(RestartIndex, IndexThatDisagreesWithTheImageIsRefused) {
  Bytes packed = pack(make(kVariants[0], 500, 375, 5));
  RestartIndex index;
  bool found = false;
  ASSERT_TRUE(read_restart_index(packed, index, found).ok());
  // The interval count sits after the tag (13 bytes), the version and K.
  packed[index.index_offset + 4 + 13 + 1 + 4 + 3] ^= 1;
  const DecodeStatus status = read_restart_index(packed, index, found);
  EXPECT_TRUE(found);
  EXPECT_EQ(status.code, DecodeErrc::kCorrupt);
  EXPECT_NE(status.message.find("intervals"), std::string::npos) << status.message;
}

// Random damage to the index segment, the headers and the scan of a packed JPEG: every decode
// returns, with an error or with pixels, and some are refused.
TEST(RestartIndex, RandomDamageIsAnErrorOrPixels) {
  const Bytes packed = pack(make(kVariants[0], 333, 251, 4));
  RestartIndex index;
  bool found = false;
  ASSERT_TRUE(read_restart_index(packed, index, found).ok());
  ImageDecoder decoder;
  Bytes out(224 * 224 * 3);
  std::mt19937 rng(3);
  int refused = 0;
  for (int trial = 0; trial < 600; ++trial) {
    Bytes damaged = packed;
    // Mostly inside the index segment and the headers, where the parser reads.
    const std::size_t span = trial % 3 == 0 ? damaged.size() : index.scan_start;
    for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips) {
      damaged[rng() % span] = static_cast<std::uint8_t>(rng());
    }
    if (trial % 7 == 0) damaged.resize(rng() % damaged.size());
    const DecodeStatus status = decoder.decode(damaged, TransformSpec{}, trial, out);
    refused += status.ok() ? 0 : 1;
  }
  EXPECT_GT(refused, 0);
}

TEST(JpegPacker, ImageAboveTheIntervalCapGetsALargerK) {
  // Grayscale 1600x1296: 200 x 162 one-block MCUs, 32,400 > kMaxIntervals at K = 1.
  const Bytes original = make(kVariants[3], 1600, 1296, 6);
  const Bytes packed = pack(original, 1);
  RestartIndex index;
  bool found = false;
  ASSERT_TRUE(read_restart_index(packed, index, found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(index.mcus_per_interval, 2);
  ImageDecoder decoder;
  const TransformSpec spec;
  Bytes want(224 * 224 * 3), got(224 * 224 * 3);
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    ASSERT_TRUE(decoder.decode(original, spec, seed, want).ok());
    ASSERT_TRUE(decoder.decode(packed, spec, seed, got).ok());
    ASSERT_EQ(got, want) << "seed " << seed;
  }
}

TEST(JpegPacker, ResizedKeepsTheLongerSideAndIsPacked) {
  const Bytes original = make(kVariants[0], 500, 375, 9);
  JpegPacker packer;
  Bytes out;
  ASSERT_TRUE(packer.pack_resized(original, 320, 90, out).ok());
  EXPECT_TRUE(packer.resized());
  EXPECT_EQ(packer.source_width(), 500);
  EXPECT_EQ(packer.source_height(), 375);
  RestartIndex index;
  bool found = false;
  ASSERT_TRUE(read_restart_index(out, index, found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(index.width, 320);
  EXPECT_EQ(index.height, 240);
  // Already small enough: packed losslessly.
  ASSERT_TRUE(packer.pack_resized(original, 500, 90, out).ok());
  EXPECT_FALSE(packer.resized());
  ImageDecoder decoder;
  EXPECT_EQ(full(decoder, out), full(decoder, original));
}

TEST(JpegPacker, RefusesWhatIsNoJpeg) {
  JpegPacker packer;
  Bytes out;
  EXPECT_EQ(packer.pack(Bytes{}, out).code, DecodeErrc::kEmpty);
  EXPECT_EQ(packer.pack(Bytes{0x89, 'P', 'N', 'G'}, out).code, DecodeErrc::kNotJpeg);
  const Bytes jpeg = make(kVariants[0], 96, 72, 2);
  const Bytes cut(jpeg.begin(), jpeg.begin() + 300);
  const DecodeStatus status = packer.pack(cut, out);
  EXPECT_EQ(status.code, DecodeErrc::kTruncated) << status.message;
}

// The one pack-or-keep decision of `feedrate pack`, the pack cache and the packing probe.
TEST(PackChoice, TranscodesJpegsWithoutAnIndexAndKeepsTheRest) {
  const Bytes jpeg = make(kVariants[0], 96, 72, 3);
  EXPECT_EQ(pack_choice(jpeg), PackChoice::kTranscode);
  EXPECT_EQ(pack_choice(pack(jpeg)), PackChoice::kPackedAlready);
  const Bytes progressive = make(kVariants[6], 96, 72, 4);
  EXPECT_EQ(pack_choice(progressive), PackChoice::kTranscode);
  EXPECT_EQ(pack_choice(pack(progressive)), PackChoice::kPackedAlready);
  EXPECT_EQ(pack_choice(Bytes{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}), PackChoice::kNotJpeg);
  EXPECT_EQ(pack_choice(Bytes{}), PackChoice::kNotJpeg);
  // A truncated JPEG is still a JPEG: the transcode then says what is wrong with it.
  const Bytes cut(jpeg.begin(), jpeg.begin() + 300);
  EXPECT_EQ(pack_choice(cut), PackChoice::kTranscode);
}

}  // namespace
}  // namespace feedrate::decode
