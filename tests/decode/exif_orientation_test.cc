// EXIF orientation is ignored, as torchvision ignores it: its PIL path (Image.open and the
// transforms, without ImageOps.exif_transpose) and torchvision.io.decode_jpeg both return the
// stored pixels whatever the Orientation tag says. A JPEG with an APP1 Exif segment holding
// Orientation 3, 6 or 8 must decode exactly as the same JPEG without it: same size, same bytes,
// and the same train and eval outputs for the same seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

#include "decode/image_decoder.h"
#include "decode/transform.h"
#include "tests/support/test_data.h"

namespace feedrate::decode {
namespace {

using Bytes = std::vector<unsigned char>;

// `jpeg` with an APP1 segment right after SOI: "Exif\0\0", a little-endian TIFF header and
// IFD0 with one entry, Orientation (tag 0x0112, SHORT, count 1) = `orientation`.
Bytes with_exif_orientation(const Bytes& jpeg, int orientation) {
  // APP1 (34 bytes counting the length itself); "Exif\0\0"; a little-endian TIFF header with
  // IFD0 at 8; IFD0's one entry: Orientation (0x0112), SHORT, count 1, the value padded to 4
  // bytes; no next IFD.
  const auto value = static_cast<unsigned char>(orientation);
  const unsigned char segment[] = {0xFF, 0xE1, 0, 34, 'E',   'x', 'i', 'f', 0,    0,    'I', 'I',
                                   0x2A, 0,    8, 0,  0,     0,   1,   0,   0x12, 0x01, 3,   0,
                                   1,    0,    0, 0,  value, 0,   0,   0,   0,    0,    0,   0};
  // Written into a vector of the final size (growing one from 2 bytes made GCC 12 warn,
  // -Warray-bounds, a false positive).
  Bytes out(jpeg.size() + sizeof(segment));
  std::copy(jpeg.begin(), jpeg.begin() + 2, out.begin());
  std::copy(std::begin(segment), std::end(segment), out.begin() + 2);
  std::copy(jpeg.begin() + 2, jpeg.end(), out.begin() + 2 + sizeof(segment));
  return out;
}

std::span<const std::uint8_t> as_span(const Bytes& bytes) {
  return {bytes.data(), bytes.size()};
}

// The segment's length leads to the original JPEG's next marker, and the TIFF header's IFD0
// offset leads to the Orientation entry and its value.
TEST(ExifOrientation, SegmentIsWellFormed) {
  const Bytes jpeg = testing::small_jpeg(7);
  const Bytes tagged = with_exif_orientation(jpeg, 6);
  ASSERT_EQ(tagged[3], 0xE1);
  const std::size_t next_marker = 4 + static_cast<std::size_t>(tagged[4] << 8 | tagged[5]);
  EXPECT_EQ(Bytes(tagged.begin() + next_marker, tagged.end()), Bytes(jpeg.begin() + 2, jpeg.end()));
  const std::size_t tiff = 12;  // SOI, marker, length, "Exif\0\0"
  const std::size_t entry = tiff + tagged[tiff + 4] + 2;
  EXPECT_EQ(tagged[entry] | tagged[entry + 1] << 8, 0x0112);
  EXPECT_EQ(tagged[entry + 8], 6);
}

TEST(ExifOrientation, DecodeFullIgnoresTheTag) {
  // Not square, so a rotation by 90 degrees (orientations 6 and 8) would change the size.
  const Bytes jpeg = testing::small_jpeg(11, 500, 375);
  ImageDecoder decoder;
  std::vector<std::uint8_t> plain;
  ASSERT_TRUE(decoder.decode_full(as_span(jpeg), plain).ok());
  for (const int orientation : {3, 6, 8}) {
    SCOPED_TRACE(orientation);
    const Bytes tagged = with_exif_orientation(jpeg, orientation);
    std::vector<std::uint8_t> rgb;
    const DecodeStatus status = decoder.decode_full(as_span(tagged), rgb);
    ASSERT_TRUE(status.ok()) << status.message;
    EXPECT_EQ(decoder.info().width, 500);
    EXPECT_EQ(decoder.info().height, 375);
    EXPECT_EQ(rgb, plain);
  }
}

TEST(ExifOrientation, TrainAndEvalIgnoreTheTag) {
  const Bytes jpeg = testing::small_jpeg(13, 500, 375);
  TransformSpec train;
  TransformSpec eval;
  eval.kind = TransformKind::kEval;
  ImageDecoder decoder;
  std::vector<std::uint8_t> plain(224 * 224 * 3), out(plain.size());
  for (const int orientation : {3, 6, 8}) {
    SCOPED_TRACE(orientation);
    const Bytes tagged = with_exif_orientation(jpeg, orientation);
    for (const TransformSpec& spec : {train, eval}) {
      for (std::uint64_t seed = 0; seed < 16; ++seed) {
        ASSERT_TRUE(decoder.decode(as_span(jpeg), spec, seed, plain).ok());
        const DecodeStatus status = decoder.decode(as_span(tagged), spec, seed, out);
        ASSERT_TRUE(status.ok()) << "seed " << seed << ": " << status.message;
        EXPECT_EQ(out, plain) << "seed " << seed;
      }
    }
  }
}

}  // namespace
}  // namespace feedrate::decode
