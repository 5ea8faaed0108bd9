// The COCO mask rasterizer against cases worked out by hand from pycocotools' maskApi.c
// (rleDecode, rleFrString, rleFrPoly); geometry_fixture_test.cc compares random polygons and RLEs
// with pycocotools itself.
#include "decode/mask_raster.h"

#include <gtest/gtest.h>

#include <vector>

namespace feedrate::decode {
namespace {

TEST(MaskRaster, DecodeRleIsColumnMajorFromZeros) {
  // 2 x 3: index 0 is 0, 1..2 are 1 (column 0 row 1, column 1 row 0), 3..5 are 0.
  std::vector<std::uint8_t> mask(6, 0);
  ASSERT_EQ(decode_rle(std::vector<std::uint32_t>{1, 2, 3}, 2, 3, mask), "");
  EXPECT_EQ(mask, (std::vector<std::uint8_t>{0, 1, 0, 1, 0, 0}));
  // A second RLE is OR-ed in (pycocotools' merge of one annotation's parts).
  ASSERT_EQ(decode_rle(std::vector<std::uint32_t>{5, 1}, 2, 3, mask), "");
  EXPECT_EQ(mask, (std::vector<std::uint8_t>{0, 1, 0, 1, 0, 1}));
}

TEST(MaskRaster, DecodeRleRefusesRunsPastTheImage) {
  std::vector<std::uint8_t> mask(6, 0);
  EXPECT_NE(decode_rle(std::vector<std::uint32_t>{2, 5}, 2, 3, mask), "");
  std::vector<std::uint8_t> small(5, 0);
  EXPECT_NE(decode_rle(std::vector<std::uint32_t>{1}, 2, 3, small), "");
}

TEST(MaskRaster, CompressedRleStrings) {
  std::vector<std::uint32_t> counts;
  std::string error;
  // One 5-bit group per small count.
  ASSERT_TRUE(rle_from_string("123", counts, error)) << error;
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{1, 2, 3}));
  // From the fourth count on, a delta from the count two before: 'O' is -1 (31, sign bit 0x10).
  ASSERT_TRUE(rle_from_string("123O", counts, error)) << error;
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{1, 2, 3, 1}));
  // 100 = 4 + 3 * 32: 'T' (4 | 0x20 "more") then '3'.
  ASSERT_TRUE(rle_from_string("T3", counts, error)) << error;
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{100}));
  EXPECT_FALSE(rle_from_string("1 2", counts, error));
  EXPECT_FALSE(rle_from_string("T", counts, error));  // ends inside a count
}

TEST(MaskRaster, SquarePolygonAsPycocotools) {
  // pycocotools: frPyObjects([[0, 0, 2, 0, 2, 2, 0, 2]], 4, 4) is "02208", the 2 x 2 top-left
  // pixels.
  const std::vector<double> xy = {0, 0, 2, 0, 2, 2, 0, 2};
  EXPECT_EQ(polygon_to_rle(xy, 4, 4), (std::vector<std::uint32_t>{0, 2, 2, 2, 10}));
  std::vector<std::uint8_t> mask(16, 0);
  const PolygonRange whole{0, 8};
  rasterize_polygons(xy, std::span<const PolygonRange>(&whole, 1), 4, 4, mask);
  EXPECT_EQ(mask, (std::vector<std::uint8_t>{1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(MaskRaster, PolygonOutsideTheImageIsEmpty) {
  const std::vector<double> xy = {10, 10, 20, 10, 20, 20};
  EXPECT_EQ(polygon_to_rle(xy, 4, 4), (std::vector<std::uint32_t>{16}));
}

}  // namespace
}  // namespace feedrate::decode
