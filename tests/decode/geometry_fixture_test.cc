// Box geometry and the COCO mask rasterizer against torchvision.transforms.v2 and pycocotools
// themselves: fixtures/geometry_cases.json, written by fixtures/make_geometry_fixtures.py (which
// says what each case is). Boxes must match to the bit (float32, same operations in the same
// order), masks pixel for pixel.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "decode/box_geometry.h"
#include "decode/mask_raster.h"

namespace feedrate::decode {
namespace {

nlohmann::json cases() {
  std::ifstream in(std::string(FEEDRATE_DECODE_FIXTURES) + "/geometry_cases.json");
  EXPECT_TRUE(in) << "geometry_cases.json is missing";
  return nlohmann::json::parse(in);
}

Geometry geometry_of(const nlohmann::json& c) {
  const std::string op = c["op"];
  const int width = c["width"], height = c["height"];
  const nlohmann::json& p = c["params"];
  if (op == "hflip") return flipped(identity_geometry(width, height), true, false);
  if (op == "vflip") return flipped(identity_geometry(width, height), false, true);
  if (op == "resize") return resize_geometry(width, height, p["out_w"], p["out_h"]);
  if (op == "crop") return crop_geometry(p["left"], p["top"], p["crop_w"], p["crop_h"]);
  if (op == "resized_crop") {
    return resized_crop_geometry(p["left"], p["top"], p["crop_w"], p["crop_h"], p["out_w"],
                                 p["out_h"]);
  }
  if (op == "center_crop") return center_crop_geometry(width, height, p["crop_w"], p["crop_h"]);
  if (op == "pad") return pad_geometry(width, height, p["left"], p["top"], p["right"], p["bottom"]);
  if (op == "train") {
    // The plan of RandomResizedCrop + RandomHorizontalFlip with the draws fixed.
    ResizePlan plan;
    plan.box_x = p["left"];
    plan.box_y = p["top"];
    plan.box_w = p["crop_w"];
    plan.box_h = p["crop_h"];
    plan.out_w = plan.win_w = p["out_w"];
    plan.out_h = plan.win_h = p["out_h"];
    plan.flip = p["flip"];
    return plan_geometry(plan, TransformKind::kTrain);
  }
  if (op == "zoom_out") return zoom_out_geometry(width, height, p["r"], p["u"], p["v"]);
  EXPECT_EQ(op, "eval");
  TransformSpec spec;
  spec.kind = TransformKind::kEval;
  spec.size = p["size"];
  spec.resize = p["resize"];
  Rng rng(0);
  return plan_geometry(plan_transform(spec, width, height, rng), TransformKind::kEval);
}

TEST(GeometryFixture, BoxesMatchTorchvision) {
  const nlohmann::json all = cases();
  ASSERT_GE(all["boxes"].size(), 50u);
  for (const nlohmann::json& c : all["boxes"]) {
    const std::string what = c["op"].get<std::string>() + " " + c["params"].dump() + " on " +
                             std::to_string(c["width"].get<int>()) + "x" +
                             std::to_string(c["height"].get<int>());
    const Geometry g = geometry_of(c);
    EXPECT_EQ(g.canvas_w, c["canvas_w"].get<int>()) << what;
    EXPECT_EQ(g.canvas_h, c["canvas_h"].get<int>()) << what;
    std::vector<float> boxes = c["boxes"].get<std::vector<float>>();
    transform_boxes(g, boxes);
    EXPECT_EQ(boxes, c["expected"].get<std::vector<float>>()) << what;
    EXPECT_EQ(sanitize_boxes(boxes, g.canvas_w, g.canvas_h),
              c["keep"].get<std::vector<std::uint32_t>>())
        << what;
  }
}

std::vector<std::uint8_t> mask_of_runs(const std::vector<std::uint32_t>& runs, int height,
                                       int width) {
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(height) * width, 0);
  EXPECT_EQ(decode_rle(runs, height, width, mask), "");
  return mask;
}

TEST(GeometryFixture, PolygonsMatchPycocotools) {
  const nlohmann::json all = cases();
  ASSERT_GE(all["polygons"].size(), 30u);
  std::size_t pixels = 0;
  for (const nlohmann::json& c : all["polygons"]) {
    const int width = c["width"], height = c["height"];
    const std::vector<double> xy = c["xy"].get<std::vector<double>>();
    const std::vector<std::uint8_t> expected =
        mask_of_runs(c["runs"].get<std::vector<std::uint32_t>>(), height, width);
    std::vector<std::uint8_t> mask(expected.size(), 0);
    const PolygonRange whole{0, static_cast<std::uint32_t>(xy.size())};
    rasterize_polygons(xy, std::span<const PolygonRange>(&whole, 1), height, width, mask);
    EXPECT_EQ(mask, expected) << c["xy"].dump() << " on " << width << "x" << height;
    for (std::uint8_t v : expected) pixels += v;
  }
  EXPECT_GT(pixels, 0u);  // the fixture is not all empty masks
}

TEST(GeometryFixture, CompressedRleMatchesPycocotools) {
  const nlohmann::json all = cases();
  ASSERT_GE(all["rle_strings"].size(), 10u);
  for (const nlohmann::json& c : all["rle_strings"]) {
    const int width = c["width"], height = c["height"];
    std::vector<std::uint32_t> counts;
    std::string error;
    ASSERT_TRUE(rle_from_string(c["counts"].get<std::string>(), counts, error)) << error;
    EXPECT_EQ(mask_of_runs(counts, height, width),
              mask_of_runs(c["runs"].get<std::vector<std::uint32_t>>(), height, width))
        << c["counts"];
  }
}

}  // namespace
}  // namespace feedrate::decode
