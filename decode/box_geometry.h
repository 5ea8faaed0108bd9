// Bounding boxes and polygons moved exactly as the pixels are: one geometric step of an image as
// a value (Geometry), built from the parameters of torchvision's v2 transforms or Ultralytics'
// letterbox, and applied to float32 XYXY boxes in pixels with torchvision.transforms.v2's
// kernels' arithmetic (float32, in their order, clamping where they clamp). The random draws
// (which crop, which flip) stay with the caller, as in decode/augment.h, so each function can be
// compared with torchvision given the same parameters.
//
// Coordinates are continuous: pixel column i covers [i, i + 1), so a box [x1, y1, x2, y2] of an
// image of width W flips to [W - x2, y1, W - x1, y2], as torchvision's horizontal_flip_bounding_
// boxes does. Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "decode/transform.h"

namespace feedrate::decode {

// One geometric step, applied in this order:
//  1. crop: the source rectangle [crop_x, crop_x + crop_w) x [crop_y, crop_y + crop_h) in source
//     pixels (it may reach outside the image, where torchvision's crop pads); coordinates become
//     relative to it, clamped to [0, crop_w] x [0, crop_h] when clamp_to_crop (a crop clamps; a
//     Resize, a pad or a letterbox takes the whole image and does not);
//  2. resize: the crop becomes resize_w x resize_h pixels; coordinates are multiplied by
//     scale_x, scale_y (float32), which torchvision takes as resize_w / crop_w and Ultralytics'
//     letterbox as its ratio r, before the size is rounded;
//  3. place: the resized crop's top-left corner goes to (offset_x, offset_y) of a canvas of
//     canvas_w x canvas_h: a positive offset pads (RandomZoomOut, Pad, letterbox), a negative one
//     keeps a window (CenterCrop after Resize); clamped to the canvas when clamp_to_canvas;
//  4. flip the canvas horizontally, then vertically.
// The pixels follow the same parameters (crop, resize to resize_w x resize_h, paste or cut at
// the offset, fill the rest, flip) in the detection transform's canvas (decode/
// detection_canvas.h); the classification transforms run from their ResizePlan, which
// plan_geometry converts.
struct Geometry {
  double crop_x = 0, crop_y = 0, crop_w = 0, crop_h = 0;
  bool clamp_to_crop = false;
  int resize_w = 0, resize_h = 0;
  float scale_x = 1, scale_y = 1;
  int offset_x = 0, offset_y = 0;
  int canvas_w = 0, canvas_h = 0;
  bool clamp_to_canvas = false;
  bool hflip = false, vflip = false;
};

// The identity on a width x height image.
Geometry identity_geometry(int width, int height);
// F.resize to out_w x out_h (torchvision's resize_bounding_boxes: no clamp).
Geometry resize_geometry(int width, int height, int out_w, int out_h);
// F.crop(top, left, crop_h, crop_w): crop_bounding_boxes subtracts the corner and clamps.
Geometry crop_geometry(int left, int top, int crop_w, int crop_h);
// F.resized_crop: crop_geometry, then resize to out_w x out_h (RandomResizedCrop's kernel).
Geometry resized_crop_geometry(int left, int top, int crop_w, int crop_h, int out_w, int out_h);
// F.center_crop to crop_w x crop_h: the corner is _center_crop_compute_crop_anchors' (Python
// round of half the difference), then crop_geometry (a crop larger than the image pads).
Geometry center_crop_geometry(int width, int height, int crop_w, int crop_h);
// F.pad(padding=[left, top, right, bottom]) (RandomZoomOut's kernel, its parameters drawn by the
// caller): pad_bounding_boxes shifts and clamps to the new canvas.
Geometry pad_geometry(int width, int height, int left, int top, int right, int bottom);
// RandomZoomOut.make_params given its draws, float32 as torch.rand's: the side ratio r (in
// side_range) and u, v in [0, 1): a canvas of int(width r) x int(height r), the image at
// left = int((canvas_w - width) u), top = int((canvas_h - height) v); then pad_geometry.
Geometry zoom_out_geometry(int width, int height, float r, float u, float v);
// Ultralytics' LetterBox to new_w x new_h: r = min(new_h / h, new_w / w) (at most 1 unless
// scaleup), the image resized to round(w r) x round(h r) (at least 1), padded by round(dw - 0.1) on
// the left/top and round(dw + 0.1) on the right/bottom of half the slack when centered (all of it
// right/bottom otherwise); `stride` > 0 is its auto mode (the slack modulo stride). Boxes are
// scaled by r and shifted by the left/top pad, as its _update_labels does.
Geometry letterbox_geometry(int width, int height, int new_w, int new_h, bool scaleup = true,
                            bool center = true, int stride = 0);
// The existing train / eval transforms' plan (decode/transform.h) as a Geometry: train is
// RandomResizedCrop + RandomHorizontalFlip (resized_crop, the flip), eval Resize + CenterCrop
// (a resize, then a window of the canvas, clamped). The plan in source pixels, as plan_transform
// returns it: a scale_plan'd one maps a DCT-scaled decode, not the annotations' image.
Geometry plan_geometry(const ResizePlan& plan, TransformKind kind);
// `g`, then the canvas flipped (F.horizontal_flip / F.vertical_flip after it).
Geometry flipped(Geometry g, bool horizontal, bool vertical);

// Applies `g` in place to boxes, 4 floats each [x1, y1, x2, y2], with torchvision's float32
// arithmetic. Boxes fully outside a clamped crop collapse to zero width or height (removed later
// by sanitize_boxes, as in torchvision).
void transform_boxes(const Geometry& g, std::span<float> boxes);
// Applies `g` in place to polygon points (x, y pairs), without clamping: a rasterizer clips them.
// A polygon bounds an area, so it flips as boxes do (x -> W - x, the mirror of the mask), not as
// torchvision's KeyPoints, which are pixel indices (x -> W - 1 - x).
void transform_points(const Geometry& g, std::span<float> xy);
void transform_points(const Geometry& g, std::span<double> xy);

// F.clamp_bounding_boxes: x into [0, width], y into [0, height].
void clamp_boxes(std::span<float> boxes, int width, int height);

// SanitizeBoundingBoxes' mask (torchvision _get_sanitize_bounding_boxes_mask): a box is kept when
// its width and height are at least min_size, its area at least min_area, every coordinate is
// >= 0, x1, x2 <= width and y1, y2 <= height. Returns the indices of the kept boxes, ascending:
// gather boxes, labels and flags through them.
std::vector<std::uint32_t> sanitize_boxes(std::span<const float> boxes, int width, int height,
                                          float min_size = 1, float min_area = 1);

// RandomIoUCrop's test of one candidate crop [left, right) x [top, bottom) (torchvision v2
// RandomIoUCrop.make_params): the boxes whose centre lies strictly inside the crop, and whether
// the crop is accepted: at least one such box, and the largest IoU of those boxes with the crop
// at least min_overlap. (A min_overlap option >= 1 is the caller's "leave as is", drawn before.)
struct IouCropTest {
  std::vector<bool> center_inside;
  bool accepted = false;
};
IouCropTest iou_crop_test(std::span<const float> boxes, int left, int top, int right, int bottom,
                          double min_overlap);
// After the crop (crop_geometry), the boxes whose centre was outside become [0, 0, 0, 0], as
// RandomIoUCrop.transform marks them for SanitizeBoundingBoxes.
void zero_boxes_outside(std::span<float> boxes, const std::vector<bool>& center_inside);

// torchvision.ops.box_iou of one pair, in float32.
float box_iou(const float* a, const float* b);

}  // namespace feedrate::decode
