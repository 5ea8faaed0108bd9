#include "decode/box_geometry.h"

#include <algorithm>
#include <cmath>

namespace feedrate::decode {

namespace {

// torchvision multiplies float32 boxes by torch.tensor([new / old]), a float32 of the Python
// float quotient.
float ratio(int to, double from) {
  return static_cast<float>(to / from);
}

// One axis of steps 1-3 of a Geometry, in the float32 order of torchvision's kernels: subtract
// the crop corner, clamp to the crop, multiply, add the offset, clamp to the canvas.
struct Axis {
  float origin, crop_extent, scale, offset, canvas;
  bool clamp_crop, clamp_canvas;

  float operator()(float v) const {
    v -= origin;
    if (clamp_crop) v = std::clamp(v, 0.0f, crop_extent);
    v *= scale;
    v += offset;
    if (clamp_canvas) v = std::clamp(v, 0.0f, canvas);
    return v;
  }
};

// The x axis of `g` (horizontal) or its y axis.
Axis axis(const Geometry& g, bool horizontal) {
  const auto f = [](double v) { return static_cast<float>(v); };
  return horizontal ? Axis{f(g.crop_x),   f(g.crop_w),     g.scale_x,        f(g.offset_x),
                           f(g.canvas_w), g.clamp_to_crop, g.clamp_to_canvas}
                    : Axis{f(g.crop_y),   f(g.crop_h),     g.scale_y,        f(g.offset_y),
                           f(g.canvas_h), g.clamp_to_crop, g.clamp_to_canvas};
}

template <typename T>
void transform_xy(const Geometry& g, std::span<T> xy) {
  for (std::size_t i = 0; i + 1 < xy.size(); i += 2) {
    // Points are not clamped, whatever the geometry says: a polygon keeps its shape.
    T x = (static_cast<T>(xy[i]) - static_cast<T>(g.crop_x)) * g.scale_x + g.offset_x;
    T y = (static_cast<T>(xy[i + 1]) - static_cast<T>(g.crop_y)) * g.scale_y + g.offset_y;
    if (g.hflip) x = static_cast<T>(g.canvas_w) - x;
    if (g.vflip) y = static_cast<T>(g.canvas_h) - y;
    xy[i] = x;
    xy[i + 1] = y;
  }
}

// `g` with its crop resized to out_w x out_h, on a canvas of that size.
Geometry resized_to(Geometry g, int out_w, int out_h) {
  g.resize_w = g.canvas_w = out_w;
  g.resize_h = g.canvas_h = out_h;
  g.scale_x = ratio(out_w, g.crop_w);
  g.scale_y = ratio(out_h, g.crop_h);
  return g;
}

}  // namespace

Geometry identity_geometry(int width, int height) {
  return resize_geometry(width, height, width, height);
}

Geometry resize_geometry(int width, int height, int out_w, int out_h) {
  Geometry g;
  g.crop_w = width;
  g.crop_h = height;
  return resized_to(g, out_w, out_h);
}

Geometry crop_geometry(int left, int top, int crop_w, int crop_h) {
  Geometry g;
  g.crop_x = left;
  g.crop_y = top;
  g.crop_w = g.resize_w = g.canvas_w = crop_w;
  g.crop_h = g.resize_h = g.canvas_h = crop_h;
  g.clamp_to_crop = true;
  return g;
}

Geometry resized_crop_geometry(int left, int top, int crop_w, int crop_h, int out_w, int out_h) {
  return resized_to(crop_geometry(left, top, crop_w, crop_h), out_w, out_h);
}

Geometry center_crop_geometry(int width, int height, int crop_w, int crop_h) {
  return crop_geometry(py_round((width - crop_w) / 2.0), py_round((height - crop_h) / 2.0), crop_w,
                       crop_h);
}

Geometry pad_geometry(int width, int height, int left, int top, int right, int bottom) {
  Geometry g = identity_geometry(width, height);
  g.offset_x = left;
  g.offset_y = top;
  g.canvas_w = width + left + right;
  g.canvas_h = height + top + bottom;
  g.clamp_to_canvas = true;
  return g;
}

Geometry zoom_out_geometry(int width, int height, float r, float u, float v) {
  // torch multiplies the Python int by the float32 tensor in float32, then int() truncates.
  const int canvas_w = static_cast<int>(static_cast<float>(width) * r);
  const int canvas_h = static_cast<int>(static_cast<float>(height) * r);
  const int left = static_cast<int>(static_cast<float>(canvas_w - width) * u);
  const int top = static_cast<int>(static_cast<float>(canvas_h - height) * v);
  return pad_geometry(width, height, left, top, canvas_w - (left + width),
                      canvas_h - (top + height));
}

Geometry letterbox_geometry(int width, int height, int new_w, int new_h, bool scaleup, bool center,
                            int stride) {
  double r = std::min(static_cast<double>(new_h) / height, static_cast<double>(new_w) / width);
  if (!scaleup) r = std::min(r, 1.0);
  // At least one pixel, as Ultralytics keeps thin images.
  const int unpad_w = std::max(py_round(width * r), 1);
  const int unpad_h = std::max(py_round(height * r), 1);
  double dw = new_w - unpad_w;
  double dh = new_h - unpad_h;
  if (stride > 0) {
    dw = std::fmod(dw, stride);
    dh = std::fmod(dh, stride);
  }
  if (center) {
    dw /= 2;
    dh /= 2;
  }
  const int top = center ? py_round(dh - 0.1) : 0;
  const int bottom = py_round(dh + 0.1);
  const int left = center ? py_round(dw - 0.1) : 0;
  const int right = py_round(dw + 0.1);
  Geometry g;
  g.crop_w = width;
  g.crop_h = height;
  g.resize_w = unpad_w;
  g.resize_h = unpad_h;
  g.scale_x = g.scale_y = static_cast<float>(r);
  g.offset_x = left;
  g.offset_y = top;
  g.canvas_w = unpad_w + left + right;
  g.canvas_h = unpad_h + top + bottom;
  return g;
}

Geometry plan_geometry(const ResizePlan& plan, TransformKind kind) {
  Geometry g;
  g.crop_x = plan.box_x;
  g.crop_y = plan.box_y;
  g.crop_w = plan.box_w;
  g.crop_h = plan.box_h;
  g = resized_to(g, plan.out_w, plan.out_h);
  g.offset_x = -plan.win_x;
  g.offset_y = -plan.win_y;
  g.canvas_w = plan.win_w;
  g.canvas_h = plan.win_h;
  // Train: RandomResizedCrop's crop clamps, its resize does not. Eval: Resize does not clamp,
  // CenterCrop does.
  g.clamp_to_crop = kind == TransformKind::kTrain;
  g.clamp_to_canvas = kind != TransformKind::kTrain;
  g.hflip = plan.flip;
  return g;
}

Geometry flipped(Geometry g, bool horizontal, bool vertical) {
  g.hflip = g.hflip != horizontal;
  g.vflip = g.vflip != vertical;
  return g;
}

void transform_boxes(const Geometry& g, std::span<float> boxes) {
  const Axis ax = axis(g, true);
  const Axis ay = axis(g, false);
  const float canvas_w = static_cast<float>(g.canvas_w);
  const float canvas_h = static_cast<float>(g.canvas_h);
  for (std::size_t i = 0; i + 3 < boxes.size(); i += 4) {
    float x1 = ax(boxes[i]), y1 = ay(boxes[i + 1]), x2 = ax(boxes[i + 2]), y2 = ay(boxes[i + 3]);
    if (g.hflip) {
      // horizontal_flip_bounding_boxes: [x1, x2] = -([x2, x1] - W).
      const float flipped_x1 = -(x2 - canvas_w);
      x2 = -(x1 - canvas_w);
      x1 = flipped_x1;
    }
    if (g.vflip) {
      const float flipped_y1 = -(y2 - canvas_h);
      y2 = -(y1 - canvas_h);
      y1 = flipped_y1;
    }
    boxes[i] = x1;
    boxes[i + 1] = y1;
    boxes[i + 2] = x2;
    boxes[i + 3] = y2;
  }
}

void transform_points(const Geometry& g, std::span<float> xy) {
  transform_xy(g, xy);
}

void transform_points(const Geometry& g, std::span<double> xy) {
  transform_xy(g, xy);
}

void clamp_boxes(std::span<float> boxes, int width, int height) {
  const float w = static_cast<float>(width);
  const float h = static_cast<float>(height);
  for (std::size_t i = 0; i + 3 < boxes.size(); i += 4) {
    boxes[i] = std::clamp(boxes[i], 0.0f, w);
    boxes[i + 1] = std::clamp(boxes[i + 1], 0.0f, h);
    boxes[i + 2] = std::clamp(boxes[i + 2], 0.0f, w);
    boxes[i + 3] = std::clamp(boxes[i + 3], 0.0f, h);
  }
}

std::vector<std::uint32_t> sanitize_boxes(std::span<const float> boxes, int width, int height,
                                          float min_size, float min_area) {
  const float w = static_cast<float>(width);
  const float h = static_cast<float>(height);
  std::vector<std::uint32_t> keep;
  for (std::size_t i = 0; i + 3 < boxes.size(); i += 4) {
    const float* b = &boxes[i];
    const float bw = b[2] - b[0];
    const float bh = b[3] - b[1];
    const bool valid = bw >= min_size && bh >= min_size && bw * bh >= min_area && b[0] >= 0 &&
                       b[1] >= 0 && b[2] >= 0 && b[3] >= 0 && b[0] <= w && b[2] <= w && b[1] <= h &&
                       b[3] <= h;
    if (valid) keep.push_back(static_cast<std::uint32_t>(i / 4));
  }
  return keep;
}

float box_iou(const float* a, const float* b) {
  // torchvision.ops.boxes._box_inter_union, then inter / union.
  const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  const float w = std::max(std::min(a[2], b[2]) - std::max(a[0], b[0]), 0.0f);
  const float h = std::max(std::min(a[3], b[3]) - std::max(a[1], b[1]), 0.0f);
  const float inter = w * h;
  return inter / (area_a + area_b - inter);
}

IouCropTest iou_crop_test(std::span<const float> boxes, int left, int top, int right, int bottom,
                          double min_overlap) {
  IouCropTest test;
  const std::size_t n = boxes.size() / 4;
  test.center_inside.assign(n, false);
  const float crop[4] = {static_cast<float>(left), static_cast<float>(top),
                         static_cast<float>(right), static_cast<float>(bottom)};
  float best = 0;
  bool any = false;
  for (std::size_t i = 0; i < n; ++i) {
    const float* b = &boxes[4 * i];
    const float cx = 0.5f * (b[0] + b[2]);
    const float cy = 0.5f * (b[1] + b[3]);
    if (!(left < cx && cx < right && top < cy && cy < bottom)) continue;
    test.center_inside[i] = true;
    best = any ? std::max(best, box_iou(b, crop)) : box_iou(b, crop);
    any = true;
  }
  // `ious.max() < min_jaccard_overlap` rejects: a float32 tensor against a Python float, which
  // torch compares in float32.
  test.accepted = any && !(best < static_cast<float>(min_overlap));
  return test;
}

void zero_boxes_outside(std::span<float> boxes, const std::vector<bool>& center_inside) {
  for (std::size_t i = 0; i < center_inside.size() && 4 * i + 3 < boxes.size(); ++i) {
    if (!center_inside[i]) std::fill_n(&boxes[4 * i], 4, 0.0f);
  }
}

}  // namespace feedrate::decode
