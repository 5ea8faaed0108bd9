// Box geometry against values worked out by hand from torchvision.transforms.v2.functional's box
// kernels (torchvision/transforms/v2/functional/_geometry.py) and Ultralytics' LetterBox
// (ultralytics/data/augment.py); geometry_fixture_test.cc compares random cases with torchvision
// itself.
#include "decode/box_geometry.h"

#include <gtest/gtest.h>

#include <vector>

namespace feedrate::decode {
namespace {

std::vector<float> moved(const Geometry& g, std::vector<float> boxes) {
  transform_boxes(g, boxes);
  return boxes;
}

// horizontal_flip_bounding_boxes: [x1, x2] <- [W - x2, W - x1].
TEST(BoxGeometry, HorizontalFlipMirrorsAroundTheWidth) {
  const Geometry g = flipped(identity_geometry(100, 50), true, false);
  EXPECT_EQ(moved(g, {10, 20, 30, 40}), (std::vector<float>{70, 20, 90, 40}));
  // Boxes touching a border stay inside: the whole image, and one at the right edge.
  EXPECT_EQ(moved(g, {0, 0, 100, 50}), (std::vector<float>{0, 0, 100, 50}));
  EXPECT_EQ(moved(g, {90, 0, 100, 10}), (std::vector<float>{0, 0, 10, 10}));
}

// vertical_flip_bounding_boxes: [y1, y2] <- [H - y2, H - y1].
TEST(BoxGeometry, VerticalFlipMirrorsAroundTheHeight) {
  const Geometry g = flipped(identity_geometry(100, 50), false, true);
  EXPECT_EQ(moved(g, {10, 20, 30, 40}), (std::vector<float>{10, 10, 30, 30}));
  EXPECT_EQ(moved(g, {0, 40, 10, 50}), (std::vector<float>{0, 0, 10, 10}));
}

// resize_bounding_boxes: x * new_w / old_w, y * new_h / old_h, no clamp.
TEST(BoxGeometry, ResizeScalesEachAxis) {
  const Geometry g = resize_geometry(100, 50, 200, 25);
  EXPECT_EQ(g.resize_w, 200);
  EXPECT_EQ(g.canvas_h, 25);
  EXPECT_EQ(moved(g, {10, 20, 30, 40}), (std::vector<float>{20, 10, 60, 20}));
  // Outside the image stays outside: Resize does not clamp.
  EXPECT_EQ(moved(g, {-10, 0, 120, 60}), (std::vector<float>{-20, 0, 240, 30}));
}

// crop_bounding_boxes: minus [left, top], then clamp_bounding_boxes to the crop.
TEST(BoxGeometry, CropShiftsAndClamps) {
  const Geometry g = crop_geometry(20, 10, 50, 30);
  EXPECT_EQ(moved(g, {10, 20, 30, 40}), (std::vector<float>{0, 10, 10, 30}));
  // Fully outside (right of and above the crop): collapses onto the border with no area.
  EXPECT_EQ(moved(g, {80, 0, 90, 5}), (std::vector<float>{50, 0, 50, 0}));
  // Zero-area boxes stay zero-area.
  EXPECT_EQ(moved(g, {30, 20, 30, 20}), (std::vector<float>{10, 10, 10, 10}));
}

// resized_crop: the crop, then the resize of the crop to the output (RandomResizedCrop).
TEST(BoxGeometry, ResizedCropCropsThenScales) {
  const Geometry g = resized_crop_geometry(20, 10, 50, 30, 100, 60);
  EXPECT_EQ(moved(g, {10, 20, 30, 40}), (std::vector<float>{0, 20, 20, 60}));
}

// center_crop_bounding_boxes: anchors int(round((H - h) / 2.0)), Python's round; a crop larger
// than the image pads (a negative corner).
TEST(BoxGeometry, CenterCropUsesPythonRoundedAnchors) {
  EXPECT_EQ(moved(center_crop_geometry(100, 50, 40, 40), {10, 20, 30, 40}),
            (std::vector<float>{0, 15, 0, 35}));
  EXPECT_EQ(moved(center_crop_geometry(100, 50, 120, 60), {10, 20, 30, 40}),
            (std::vector<float>{20, 25, 40, 45}));
  // (101 - 100) / 2 = 0.5 rounds to 0, (103 - 100) / 2 = 1.5 to 2.
  EXPECT_EQ(center_crop_geometry(101, 10, 100, 10).crop_x, 0);
  EXPECT_EQ(center_crop_geometry(103, 10, 100, 10).crop_x, 2);
}

// pad_bounding_boxes: plus [left, top], a canvas grown by the padding, clamped to it
// (RandomZoomOut's kernel).
TEST(BoxGeometry, PadShiftsOntoALargerCanvas) {
  const Geometry g = pad_geometry(100, 50, 5, 7, 3, 1);
  EXPECT_EQ(g.canvas_w, 108);
  EXPECT_EQ(g.canvas_h, 58);
  EXPECT_EQ(moved(g, {10, 20, 30, 40}), (std::vector<float>{15, 27, 35, 47}));
  EXPECT_EQ(moved(flipped(g, true, false), {0, 0, 100, 50}), (std::vector<float>{3, 7, 103, 57}));
}

// RandomZoomOut.make_params: canvas int(w r) x int(h r), left int((canvas_w - w) u), top
// int((canvas_h - h) v), padding the rest.
TEST(BoxGeometry, ZoomOutPadsOntoTheDrawnCanvas) {
  const Geometry g = zoom_out_geometry(100, 50, 2.5f, 0.25f, 0.5f);
  EXPECT_EQ(g.canvas_w, 250);
  EXPECT_EQ(g.canvas_h, 125);
  EXPECT_EQ(g.offset_x, 37);  // int(150 * 0.25) = int(37.5)
  EXPECT_EQ(g.offset_y, 37);  // int(75 * 0.5) = int(37.5)
  EXPECT_EQ(moved(g, {10, 20, 30, 40}), (std::vector<float>{47, 57, 67, 77}));
  // r = 1: no room, no shift.
  const Geometry same = zoom_out_geometry(100, 50, 1.0f, 0.9f, 0.9f);
  EXPECT_EQ(same.canvas_w, 100);
  EXPECT_EQ(same.offset_x, 0);
}

// LetterBox: r = min(640 / h, 640 / w); the image round(w r) x round(h r); the slack halved,
// round(d - 0.1) before and round(d + 0.1) after; boxes * r + [left, top].
TEST(BoxGeometry, LetterboxFollowsUltralyticsRounding) {
  Geometry g = letterbox_geometry(640, 480, 640, 640);
  EXPECT_EQ(g.offset_x, 0);
  EXPECT_EQ(g.offset_y, 80);
  EXPECT_EQ(g.canvas_h, 640);
  EXPECT_EQ(moved(g, {10, 20, 30, 40}), (std::vector<float>{10, 100, 30, 120}));

  // 335 x 500: r = 1.28, 335 r = 428.8 -> 429, slack 211 -> 105.5: left round(105.4) = 105,
  // right round(105.6) = 106.
  g = letterbox_geometry(335, 500, 640, 640);
  EXPECT_EQ(g.resize_w, 429);
  EXPECT_EQ(g.resize_h, 640);
  EXPECT_EQ(g.offset_x, 105);
  EXPECT_EQ(g.canvas_w, 640);
  const float r = 1.28f;
  EXPECT_EQ(moved(g, {10, 20, 30, 40}),
            (std::vector<float>{10 * r + 105, 20 * r, 30 * r + 105, 40 * r}));

  // scaleup=False keeps a small image's size; the padding centres it.
  g = letterbox_geometry(320, 240, 640, 640, /*scaleup=*/false);
  EXPECT_EQ(g.scale_x, 1.0f);
  EXPECT_EQ(g.offset_x, 160);
  EXPECT_EQ(g.offset_y, 200);

  // auto (stride 32): the slack modulo the stride, 211 % 32 = 19 -> 9.5: 9 left, 10 right.
  g = letterbox_geometry(335, 500, 640, 640, true, true, 32);
  EXPECT_EQ(g.offset_x, 9);
  EXPECT_EQ(g.canvas_w, 429 + 19);
  EXPECT_EQ(g.canvas_h, 640);

  // Not centred: all the slack on the right and bottom.
  g = letterbox_geometry(640, 480, 640, 640, true, false);
  EXPECT_EQ(g.offset_y, 0);
  EXPECT_EQ(g.canvas_h, 640);
}

// The train transform's plan: RandomResizedCrop of box (10, 20, 50, 40) to 100, then the flip.
TEST(BoxGeometry, TrainPlanIsResizedCropThenFlip) {
  ResizePlan plan;
  plan.box_x = 10;
  plan.box_y = 20;
  plan.box_w = 50;
  plan.box_h = 40;
  plan.out_w = plan.out_h = plan.win_w = plan.win_h = 100;
  plan.flip = true;
  const Geometry g = plan_geometry(plan, TransformKind::kTrain);
  // [20, 30, 40, 50] - [10, 20] = [10, 10, 30, 30]; x * 2, y * 2.5 = [20, 25, 60, 75]; flipped.
  EXPECT_EQ(moved(g, {20, 30, 40, 50}), (std::vector<float>{40, 25, 80, 75}));
  // Left of the crop: clamped to its edge, no width.
  EXPECT_EQ(moved(g, {0, 30, 5, 50}), (std::vector<float>{100, 25, 100, 75}));
}

// The eval transform's plan: Resize(256) then CenterCrop(224) on a 400 x 300 image.
TEST(BoxGeometry, EvalPlanIsResizeThenCenterCrop) {
  TransformSpec spec;
  spec.kind = TransformKind::kEval;
  spec.size = 224;
  spec.resize = 256;
  Rng rng(1);
  const ResizePlan plan = plan_transform(spec, 400, 300, rng);
  ASSERT_EQ(plan.out_w, 341);
  ASSERT_EQ(plan.win_x, 58);  // round(58.5) = 58
  const Geometry g = plan_geometry(plan, TransformKind::kEval);
  EXPECT_EQ(moved(g, {0, 0, 400, 300}), (std::vector<float>{0, 0, 224, 224}));
  // 200 * (341 / 400) - 58 = 112.5; 150 * (256 / 300) - 16 = 112.
  const std::vector<float> centre = moved(g, {200, 150, 200, 150});
  EXPECT_FLOAT_EQ(centre[0], 200 * static_cast<float>(341 / 400.0) - 58);
  EXPECT_FLOAT_EQ(centre[1], 150 * static_cast<float>(256 / 300.0) - 16);
}

// SanitizeBoundingBoxes(min_size=1): width and height >= 1, area >= 1, inside the canvas.
TEST(BoxGeometry, SanitizeKeepsOnlyValidBoxes) {
  const std::vector<float> boxes = {
      0,  0,  1,   1,   // kept: exactly 1 x 1
      0,  0,  0.5, 10,  // too narrow
      -1, 0,  5,   5,   // negative coordinate
      0,  0,  101, 5,   // past the width
      0,  0,  0,   0,   // zeroed by RandomIoUCrop
      90, 40, 100, 50,  // kept: touching the corner
  };
  EXPECT_EQ(sanitize_boxes(boxes, 100, 50), (std::vector<std::uint32_t>{0, 5}));
  EXPECT_TRUE(sanitize_boxes({}, 100, 50).empty());
}

// RandomIoUCrop.make_params: centres strictly inside, then the best IoU of those against the crop.
TEST(BoxGeometry, IouCropTestsCentresThenOverlap) {
  std::vector<float> boxes = {0, 0, 10, 10, 50, 50, 70, 70, 30, 30, 50, 50};
  // Box 1's IoU with [40, 40, 100, 100]: 400 / 3600. Box 2's centre (40, 40) is on the edge.
  IouCropTest test = iou_crop_test(boxes, 40, 40, 100, 100, 0.1);
  EXPECT_EQ(test.center_inside, (std::vector<bool>{false, true, false}));
  EXPECT_TRUE(test.accepted);
  EXPECT_FALSE(iou_crop_test(boxes, 40, 40, 100, 100, 0.3).accepted);
  // No centre inside: rejected whatever the threshold.
  EXPECT_FALSE(iou_crop_test(boxes, 80, 80, 100, 100, 0.0).accepted);

  transform_boxes(crop_geometry(40, 40, 60, 60), boxes);
  zero_boxes_outside(boxes, test.center_inside);
  EXPECT_EQ(boxes, (std::vector<float>{0, 0, 0, 0, 10, 10, 30, 30, 0, 0, 0, 0}));
  EXPECT_EQ(sanitize_boxes(boxes, 60, 60), (std::vector<std::uint32_t>{1}));
}

TEST(BoxGeometry, BoxIouOfDisjointAndEqualBoxes) {
  const float a[4] = {0, 0, 10, 10}, b[4] = {10, 10, 20, 20}, c[4] = {5, 0, 15, 10};
  EXPECT_EQ(box_iou(a, b), 0.0f);
  EXPECT_EQ(box_iou(a, a), 1.0f);
  EXPECT_FLOAT_EQ(box_iou(a, c), 50.0f / 150.0f);
}

// Polygons move as the boxes do, without clamping.
TEST(BoxGeometry, PointsFollowTheBoxes) {
  const Geometry g = flipped(resized_crop_geometry(20, 10, 50, 30, 100, 60), true, false);
  std::vector<double> xy = {20, 10, 70, 40, 0, 0};
  transform_points(g, std::span<double>(xy));
  EXPECT_EQ(xy, (std::vector<double>{100, 0, 0, 60, 140, -20}));
  std::vector<float> box = {20, 10, 70, 40};
  transform_boxes(g, box);
  EXPECT_EQ(box, (std::vector<float>{0, 0, 100, 60}));
}

TEST(BoxGeometry, ClampBoxesToTheCanvas) {
  std::vector<float> boxes = {-5, -5, 120, 30, 10, 60, 20, 70};
  clamp_boxes(boxes, 100, 50);
  EXPECT_EQ(boxes, (std::vector<float>{0, 0, 100, 30, 10, 50, 20, 50}));
}

}  // namespace
}  // namespace feedrate::decode
