// Tests for decode/format.h and decode/decoder.h: the content sniffer; every non-JPEG decoder
// against the pixels its file was encoded from (lossless formats exactly, with PIL's
// conversions for alpha, palettes, gray and 16-bit samples); transforms applied alike to every
// format; and the error paths: declared sizes above the limit, truncation, CRC errors,
// unsupported variants, random corruption.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench/datagen/datagen.h"
#include "bench/datagen/image_formats.h"
#include "decode/decoder.h"
#include "decode/format.h"

namespace feedrate::decode {
namespace {

using datagen::Bytes;
using datagen::PngKind;

constexpr int kWidth = 61, kHeight = 47;  // odd sizes: row padding and partial Adam7 passes

const std::vector<unsigned char>& pixels() {
  static const std::vector<unsigned char> rgb = datagen::make_rgb_pixels(7, kWidth, kHeight);
  return rgb;
}

unsigned char luma(const unsigned char* p) {
  return static_cast<unsigned char>((299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000);
}

std::vector<unsigned char> gray_rgb() {
  std::vector<unsigned char> out(pixels().size());
  for (std::size_t i = 0; i < out.size(); i += 3)
    out[i] = out[i + 1] = out[i + 2] = luma(&pixels()[i]);
  return out;
}

struct Decoded {
  DecodeStatus status;
  std::vector<std::uint8_t> rgb;
  int width = 0, height = 0;
  ImageFormat format = ImageFormat::kUnknown;
};

Decoded full(const Bytes& bytes, DecodeLimits limits = {}) {
  Decoder decoder(limits);
  Decoded d;
  d.status = decoder.decode_full(bytes, d.rgb);
  d.width = decoder.width();
  d.height = decoder.height();
  d.format = decoder.format();
  return d;
}

void expect_pixels(const Bytes& bytes, ImageFormat format,
                   const std::vector<unsigned char>& expected, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(sniff_format(bytes), format);
  const Decoded d = full(bytes);
  ASSERT_TRUE(d.status.ok()) << errc_name(d.status.code) << ": " << d.status.message;
  EXPECT_EQ(d.format, format);
  EXPECT_EQ(d.width, kWidth);
  EXPECT_EQ(d.height, kHeight);
  EXPECT_TRUE(d.rgb == expected);
}

// CRC-32 of PNG chunks (ISO 3309), to rewrite IHDR with a valid checksum.
std::uint32_t crc32(const unsigned char* data, std::size_t length) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < length; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void put32be(Bytes& bytes, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<unsigned char>(v >> (24 - 8 * i));
}
void put32le(Bytes& bytes, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<unsigned char>(v >> (8 * i));
}

Bytes png(PngKind kind, bool interlaced = false) {
  return datagen::encode_png(pixels(), kWidth, kHeight, {kind, interlaced});
}

TEST(FormatSniff, FirstBytesChooseTheFormat) {
  EXPECT_EQ(sniff_format(png(PngKind::kRgb)), ImageFormat::kPng);
  EXPECT_EQ(sniff_format(datagen::encode_webp(pixels(), kWidth, kHeight, true, false)),
            ImageFormat::kWebp);
  EXPECT_EQ(sniff_format(datagen::encode_bmp(pixels(), kWidth, kHeight, 24, false)),
            ImageFormat::kBmp);
  EXPECT_EQ(sniff_format(datagen::encode_pnm(pixels(), kWidth, kHeight, true)), ImageFormat::kPnm);
  EXPECT_EQ(sniff_format(datagen::encode_tiff(pixels(), kWidth, kHeight)), ImageFormat::kTiff);
  datagen::JpegSpec spec;
  spec.width = kWidth;
  spec.height = kHeight;
  EXPECT_EQ(sniff_format(datagen::make_jpeg(1, spec)), ImageFormat::kJpeg);
  const std::string gif = "GIF89a....";
  EXPECT_EQ(sniff_format(Bytes(gif.begin(), gif.end())), ImageFormat::kGif);
  const std::string text = "P is for pixels, not a PNM";
  EXPECT_EQ(sniff_format(Bytes(text.begin(), text.end())), ImageFormat::kUnknown);
  EXPECT_EQ(sniff_format({}), ImageFormat::kUnknown);
}

TEST(FormatDecode, LosslessFormatsGiveTheEncodedPixels) {
  expect_pixels(png(PngKind::kRgb), ImageFormat::kPng, pixels(), "RGB PNG");
  expect_pixels(png(PngKind::kRgb, true), ImageFormat::kPng, pixels(), "interlaced RGB PNG");
  expect_pixels(datagen::encode_bmp(pixels(), kWidth, kHeight, 24, false), ImageFormat::kBmp,
                pixels(), "24-bit bottom-up BMP");
  expect_pixels(datagen::encode_bmp(pixels(), kWidth, kHeight, 32, true), ImageFormat::kBmp,
                pixels(), "32-bit top-down BMP");
  expect_pixels(datagen::encode_pnm(pixels(), kWidth, kHeight, false), ImageFormat::kPnm, pixels(),
                "PPM");
  expect_pixels(datagen::encode_tiff(pixels(), kWidth, kHeight), ImageFormat::kTiff, pixels(),
                "TIFF");
  expect_pixels(datagen::encode_webp(pixels(), kWidth, kHeight, true, false), ImageFormat::kWebp,
                pixels(), "lossless WebP");
}

TEST(FormatDecode, AlphaIsDroppedNotPremultiplied) {
  // alpha_at() is 0 in the top-left corner: premultiplying would blacken it.
  expect_pixels(png(PngKind::kRgba), ImageFormat::kPng, pixels(), "RGBA PNG");
  expect_pixels(png(PngKind::kRgba, true), ImageFormat::kPng, pixels(), "interlaced RGBA PNG");
  // libwebp's encoder may rewrite the colour of fully transparent pixels: compare the others.
  const Decoded webp = full(datagen::encode_webp(pixels(), kWidth, kHeight, true, true));
  ASSERT_TRUE(webp.status.ok()) << webp.status.message;
  ASSERT_EQ(webp.rgb.size(), pixels().size());
  int compared = 0;
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      if (datagen::alpha_at(x, y, kWidth, kHeight) == 0) continue;
      const std::size_t i = (static_cast<std::size_t>(y) * kWidth + x) * 3;
      ASSERT_TRUE(std::equal(&webp.rgb[i], &webp.rgb[i] + 3, &pixels()[i])) << x << "," << y;
      ++compared;
    }
  }
  EXPECT_GT(compared, kWidth * kHeight - 4);
  expect_pixels(png(PngKind::kGrayAlpha), ImageFormat::kPng, gray_rgb(), "gray + alpha PNG");
}

TEST(FormatDecode, GrayPaletteAnd16BitConvertAsPilDoes) {
  expect_pixels(png(PngKind::kGray), ImageFormat::kPng, gray_rgb(), "gray PNG");
  expect_pixels(png(PngKind::kGray, true), ImageFormat::kPng, gray_rgb(), "interlaced gray PNG");
  expect_pixels(datagen::encode_pnm(pixels(), kWidth, kHeight, true), ImageFormat::kPnm, gray_rgb(),
                "PGM");
  std::vector<unsigned char> palette(pixels().size());
  for (std::size_t i = 0; i < palette.size(); ++i) {
    palette[i] = static_cast<unsigned char>(51 * ((pixels()[i] + 25) / 51));
  }
  expect_pixels(png(PngKind::kPalette), ImageFormat::kPng, palette, "palette PNG");
  // 16-bit RGB: PIL keeps the high byte, which the encoder set to the 8-bit pixel.
  expect_pixels(png(PngKind::kRgb16), ImageFormat::kPng, pixels(), "16-bit RGB PNG");
  // 16-bit gray: PIL opens it as 32-bit integers and convert("RGB") clamps them to 255. The
  // encoder's sample is luma * 256 + (i * 7) % 256.
  std::vector<unsigned char> clamped(pixels().size());
  for (std::size_t i = 0; i < clamped.size() / 3; ++i) {
    const unsigned sample = luma(&pixels()[3 * i]) * 256u + (i * 7) % 256;
    clamped[3 * i] = clamped[3 * i + 1] = clamped[3 * i + 2] =
        static_cast<unsigned char>(std::min(sample, 255u));
  }
  expect_pixels(png(PngKind::kGray16), ImageFormat::kPng, clamped, "16-bit gray PNG");
}

TEST(FormatDecode, LossyWebpIsCloseToItsSource) {
  const Decoded d = full(datagen::encode_webp(pixels(), kWidth, kHeight, false, true, 90));
  ASSERT_TRUE(d.status.ok()) << d.status.message;
  ASSERT_EQ(d.rgb.size(), pixels().size());
  double sum = 0;
  for (std::size_t i = 0; i < d.rgb.size(); ++i) sum += std::abs(d.rgb[i] - pixels()[i]);
  EXPECT_LT(sum / d.rgb.size(), 12.0);
}

TEST(FormatDecode, TransformsApplyAlikeToEveryFormat) {
  // The same pixels in four lossless formats give the same bytes under every transform.
  const std::vector<Bytes> files = {png(PngKind::kRgb, true),
                                    datagen::encode_bmp(pixels(), kWidth, kHeight, 24, false),
                                    datagen::encode_pnm(pixels(), kWidth, kHeight, false),
                                    datagen::encode_tiff(pixels(), kWidth, kHeight)};
  TransformSpec train;
  train.size = 24;
  TransformSpec eval = train;
  eval.kind = TransformKind::kEval;
  eval.resize = 28;
  Decoder decoder;
  for (const TransformSpec& spec : {train, eval}) {
    for (std::uint64_t seed = 0; seed < 8; ++seed) {
      std::vector<std::uint8_t> first(24 * 24 * 3), out(first.size());
      ASSERT_TRUE(decoder.decode(files[0], spec, seed, first).ok());
      for (std::size_t f = 1; f < files.size(); ++f) {
        ASSERT_TRUE(decoder.decode(files[f], spec, seed, out).ok()) << f;
        EXPECT_EQ(out, first) << "file " << f << " seed " << seed;
      }
    }
  }
  // The output is the plan's resampling of the full image, as the JPEG path computes it.
  std::vector<std::uint8_t> rgb, out(24 * 24 * 3), expected(out.size());
  ASSERT_TRUE(decoder.decode_full(files[0], rgb).ok());
  Rng rng(3);
  Resampler resampler;
  resampler.prepare(plan_transform(train, kWidth, kHeight, rng));
  resampler.run(rgb.data(), kWidth * 3, 0, 0, expected.data());
  ASSERT_TRUE(decoder.decode(files[0], train, 3, out).ok());
  EXPECT_EQ(out, expected);
}

void expect_error(const Bytes& bytes, DecodeErrc code, const std::string& needle,
                  const char* what) {
  const Decoded d = full(bytes);
  EXPECT_EQ(d.status.code, code) << what << ": " << errc_name(d.status.code) << ": "
                                 << d.status.message;
  EXPECT_NE(d.status.message.find(needle), std::string::npos) << what << ": " << d.status.message;
  Decoder decoder;
  std::vector<std::uint8_t> out(16 * 16 * 3);
  TransformSpec spec;
  spec.size = 16;
  EXPECT_EQ(decoder.decode(bytes, spec, 0, out).code, code) << what;
}

TEST(FormatErrors, DeclaredSizeAboveTheLimitFailsBeforeDecoding) {
  Bytes p = png(PngKind::kRgb);
  put32be(p, 16, 100'000);
  put32be(p, 20, 100'000);
  put32be(p, 29, crc32(&p[12], 17));
  expect_error(p, DecodeErrc::kTooLarge, "100000x100000 exceeds", "PNG");

  Bytes w = datagen::encode_webp(pixels(), kWidth, kHeight, true, false);
  ASSERT_EQ(w[20], 0x2f);  // VP8L signature; 14-bit width - 1 and height - 1 follow
  w[21] = w[22] = w[23] = 0xFF;
  w[24] |= 0x0F;
  expect_error(w, DecodeErrc::kTooLarge, "16384x16384 exceeds", "WebP");

  Bytes b = datagen::encode_bmp(pixels(), kWidth, kHeight, 24, false);
  put32le(b, 18, 100'000);
  put32le(b, 22, static_cast<std::uint32_t>(-100'000));
  expect_error(b, DecodeErrc::kTooLarge, "100000x100000 exceeds", "BMP");

  const std::string pnm = "P6\n100000 100000\n255\n";
  expect_error(Bytes(pnm.begin(), pnm.end()), DecodeErrc::kTooLarge, "100000x100000 exceeds",
               "PNM");

  Bytes t = datagen::encode_tiff(pixels(), kWidth, kHeight);
  put32le(t, 18, 100'000);  // first IFD entry's value: ImageWidth
  put32le(t, 30, 100'000);  // second: ImageLength
  expect_error(t, DecodeErrc::kTooLarge, "100000x100000 exceeds", "TIFF");

  const std::string empty_bmp_size = "P5\n0 10\n255\n";
  expect_error(Bytes(empty_bmp_size.begin(), empty_bmp_size.end()), DecodeErrc::kCorrupt,
               "is empty", "PNM of width 0");
}

TEST(FormatErrors, TruncationCrcAndUnsupportedVariants) {
  const Bytes p = png(PngKind::kRgb);
  expect_error(Bytes(p.begin(), p.begin() + p.size() / 2), DecodeErrc::kTruncated, "PNG",
               "PNG cut in half");
  Bytes crc = p;
  crc[crc.size() / 2] ^= 0x55;  // inside IDAT
  expect_error(crc, DecodeErrc::kCorrupt, "PNG", "PNG with a flipped IDAT byte");
  const Bytes b = datagen::encode_bmp(pixels(), kWidth, kHeight, 24, false);
  expect_error(Bytes(b.begin(), b.end() - 100), DecodeErrc::kTruncated, "BMP", "BMP cut short");
  const Bytes n = datagen::encode_pnm(pixels(), kWidth, kHeight, false);
  expect_error(Bytes(n.begin(), n.end() - 1), DecodeErrc::kTruncated, "PNM", "PPM cut short");
  const Bytes w = datagen::encode_webp(pixels(), kWidth, kHeight, false, false);
  expect_error(Bytes(w.begin(), w.begin() + w.size() * 2 / 3), DecodeErrc::kTruncated, "WebP",
               "WebP cut short");
  const Bytes t = datagen::encode_tiff(pixels(), kWidth, kHeight);
  expect_error(Bytes(t.begin(), t.begin() + t.size() / 2), DecodeErrc::kTruncated, "TIFF",
               "TIFF cut in half");

  // The variants Pillow refuses too (tests/python/test_pil_formats.py checks PIL on each).
  Bytes b2 = b;
  b2[28] = 2;
  expect_error(b2, DecodeErrc::kUnsupported, "2 bits per pixel", "2-bit BMP");
  Bytes rle = b;
  rle[30] = 1;
  expect_error(rle, DecodeErrc::kUnsupported, "RLE8 with 24 bits per pixel", "RLE8 of 24 bits");
  Bytes header52 = b;
  header52[14] = 52;
  expect_error(header52, DecodeErrc::kUnsupported, "info header of 52 bytes", "52-byte BMP header");
  const std::string pam = "P7\nWIDTH 2\n";
  expect_error(Bytes(pam.begin(), pam.end()), DecodeErrc::kUnsupported, "P7", "PAM");
  const std::string deep = "P5\n2 2\n65536\n01234567";
  expect_error(Bytes(deep.begin(), deep.end()), DecodeErrc::kCorrupt, "maxval 65536",
               "PGM above 65535");
  Bytes text_mode_png = p;  // "\r\n" became "\n": the rest shifts by a byte
  text_mode_png.erase(text_mode_png.begin() + 4);
  expect_error(text_mode_png, DecodeErrc::kCorrupt, "PNG: damaged signature", "PNG via text mode");
  Bytes flipped_png = p;
  flipped_png[0] = 0x88;
  expect_error(flipped_png, DecodeErrc::kCorrupt, "PNG: damaged signature (88 50 4e 47",
               "PNG with a flipped signature bit");
  const std::string gif = "GIF89a\x01\x00\x01\x00";
  expect_error(Bytes(gif.begin(), gif.end()), DecodeErrc::kUnsupported, "GIF", "GIF");
  const std::string text = "hello, not an image";
  expect_error(Bytes(text.begin(), text.end()), DecodeErrc::kNotImage, "68 65 6c 6c", "text");
  expect_error({}, DecodeErrc::kEmpty, "0 bytes", "empty");
}

TEST(FormatErrors, RandomCorruptionNeverCrashesAndAlwaysExplains) {
  const std::vector<Bytes> files = {png(PngKind::kPalette, true),
                                    png(PngKind::kRgb16),
                                    datagen::encode_webp(pixels(), kWidth, kHeight, false, true),
                                    datagen::encode_webp(pixels(), kWidth, kHeight, true, false),
                                    datagen::encode_bmp(pixels(), kWidth, kHeight, 32, true),
                                    datagen::encode_pnm(pixels(), kWidth, kHeight, true),
                                    datagen::encode_tiff(pixels(), kWidth, kHeight)};
  std::mt19937 random(11);
  Decoder decoder;
  TransformSpec spec;
  spec.size = 16;
  std::vector<std::uint8_t> out(16 * 16 * 3), rgb;
  for (const Bytes& file : files) {
    for (int trial = 0; trial < 150; ++trial) {
      Bytes bad = file;
      const int flips = 1 + static_cast<int>(random() % 4);
      for (int k = 0; k < flips; ++k) {
        // Headers most of the time: the bytes that steer the parsers.
        const std::size_t limit = random() % 2 ? std::min<std::size_t>(bad.size(), 64) : bad.size();
        bad[random() % limit] ^= static_cast<unsigned char>(1 + random() % 255);
      }
      if (random() % 3 == 0) bad.resize(random() % bad.size());
      const DecodeStatus a = decoder.decode(bad, spec, trial, out);
      const DecodeStatus b = decoder.decode_full(bad, rgb);
      EXPECT_TRUE(a.ok() || !a.message.empty()) << errc_name(a.code);
      EXPECT_TRUE(b.ok() || !b.message.empty()) << errc_name(b.code);
      EXPECT_EQ(a.ok(), b.ok());
    }
  }
}

}  // namespace
}  // namespace feedrate::decode
