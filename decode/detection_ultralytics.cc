#include "decode/detection_ultralytics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "decode/cv2_kernels.h"

namespace feedrate::decode {

namespace {

using Matrix = std::array<float, 9>;
using StepDraws = DetectionTransformer::StepDraws;

// numpy's float32 3x3 product.
Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix c{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      float sum = 0;
      for (int k = 0; k < 3; ++k) sum += a[i * 3 + k] * b[k * 3 + j];
      c[i * 3 + j] = sum;
    }
  }
  return c;
}

constexpr Matrix kIdentity{1, 0, 0, 0, 1, 0, 0, 0, 1};

// Ultralytics' padding and border value.
constexpr std::array<std::uint8_t, 3> kBorder{114, 114, 114};

// Replaces the masks' planes by `make`'s (each plane from the materialized one).
template <typename Make>
void remake_masks(MaskCanvas& masks, int width, int height, std::vector<std::uint8_t>& work,
                  int new_w, int new_h, std::uint8_t fill, Make make) {
  const int planes = masks.planes();
  if (planes == 0) return;
  std::vector<std::uint8_t> flat;
  masks.take(flat);
  work.resize(static_cast<std::size_t>(planes) * new_w * new_h);
  for (int p = 0; p < planes; ++p) {
    make(&flat[static_cast<std::size_t>(p) * width * height],
         &work[static_cast<std::size_t>(p) * new_w * new_h]);
  }
  masks.reset(work, planes, new_w, new_h, fill);
}

}  // namespace

void draw_hsv(const DetectionStep& step, Rng& rng, StepDraws& d) {
  d.hgain = rng.uniform(-1, 1) * step.hgain;
  d.sgain = rng.uniform(-1, 1) * step.sgain;
  d.vgain = rng.uniform(-1, 1) * step.vgain;
}

void draw_perspective(const DetectionStep& step, Rng& rng, int width, int height, int out_width,
                      int out_height, StepDraws& d) {
  const auto f = [](double v) { return static_cast<float>(v); };
  Matrix c = kIdentity;
  c[2] = f(-width / 2.0);
  c[5] = f(-height / 2.0);
  Matrix p = kIdentity;
  p[6] = f(rng.uniform(-step.perspective, step.perspective));
  p[7] = f(rng.uniform(-step.perspective, step.perspective));
  const double angle = rng.uniform(-step.degrees, step.degrees);
  const double s = rng.uniform(1 - step.perspective_scale, 1 + step.perspective_scale);
  // cv2.getRotationMatrix2D(center=(0, 0), angle, scale).
  const double radians = angle * std::numbers::pi / 180;
  const double alpha = s * std::cos(radians), beta = s * std::sin(radians);
  Matrix r = kIdentity;
  r[0] = f(alpha);
  r[1] = f(beta);
  r[3] = f(-beta);
  r[4] = f(alpha);
  Matrix shear = kIdentity;
  shear[1] = f(std::tan(rng.uniform(-step.shear, step.shear) * std::numbers::pi / 180));
  shear[3] = f(std::tan(rng.uniform(-step.shear, step.shear) * std::numbers::pi / 180));
  Matrix t = kIdentity;
  t[2] = f(rng.uniform(0.5 - step.translate, 0.5 + step.translate) * out_width);
  t[5] = f(rng.uniform(0.5 - step.translate, 0.5 + step.translate) * out_height);
  const Matrix m = multiply(multiply(multiply(multiply(t, shear), r), p), c);
  std::copy(m.begin(), m.end(), d.perspective.begin());
  d.perspective_scale = s;
}

Geometry letterbox_image(const DetectionStep& step, ImageCanvas& image, MaskCanvas& masks,
                         std::vector<std::uint8_t>& work) {
  const int width = image.width(), height = image.height();
  const Geometry g =
      letterbox_geometry(width, height, step.width, step.height, step.scaleup, step.center);
  const ImageView src = image.flat();
  if (g.resize_w != width || g.resize_h != height) {
    work.resize(static_cast<std::size_t>(g.resize_w) * g.resize_h * 3);
    cv2::resize_linear(src, ImageView{work.data(), g.resize_w, g.resize_h});
    image.reset(work, g.resize_w, g.resize_h);
  }
  // cv2.copyMakeBorder's value: the fill converted to uint8.
  const ImageCanvas::Fill border{static_cast<std::uint8_t>(step.fill[0]),
                                 static_cast<std::uint8_t>(step.fill[1]),
                                 static_cast<std::uint8_t>(step.fill[2])};
  const int right = g.canvas_w - g.resize_w - g.offset_x;
  const int bottom = g.canvas_h - g.resize_h - g.offset_y;
  image.pad(g.offset_x, g.offset_y, right, bottom, border);
  if (masks.planes() > 0) {
    masks.resize(g.resize_w, g.resize_h);
    masks.pad(g.offset_x, g.offset_y, right, bottom);
  }
  return g;
}

void hsv_image(const StepDraws& d, ImageCanvas& image) {
  if (d.hgain == 0 && d.sgain == 0 && d.vgain == 0) return;
  cv2::hsv_lut(image.pixels(), d.hgain, d.sgain, d.vgain);
}

std::vector<std::uint32_t> perspective_step(const DetectionStep& step, const StepDraws& d,
                                            const cv2::WarpSource& source, int out_width,
                                            int out_height, ImageCanvas& image, MaskCanvas& masks,
                                            std::vector<float>& boxes,
                                            std::vector<std::uint8_t>& work) {
  const int width = out_width, height = out_height;
  const bool perspective = step.perspective != 0;
  work.resize(static_cast<std::size_t>(width) * height * 3);
  cv2::warp(source, ImageView{work.data(), width, height}, d.perspective, perspective, kBorder);
  image.reset(work, width, height);
  remake_masks(masks, source.width, source.height, work, width, height, masks.fill(),
               [&](const std::uint8_t* from, std::uint8_t* to) {
                 cv2::warp_nearest(from, source.width, source.height, to, width, height,
                                   d.perspective, perspective, masks.fill());
               });
  // apply_bboxes: the four corners through M (float32), divided by w in perspective mode,
  // their extent; Instances.clip; then box_candidates against the boxes scaled by s.
  Matrix m;
  for (int i = 0; i < 9; ++i) m[i] = static_cast<float>(d.perspective[i]);
  const auto s = static_cast<float>(d.perspective_scale);
  std::vector<std::uint32_t> keep;
  for (std::size_t i = 0; i + 3 < boxes.size(); i += 4) {
    float* b = &boxes[i];
    const float corners[4][2] = {{b[0], b[1]}, {b[2], b[3]}, {b[0], b[3]}, {b[2], b[1]}};
    float x1 = INFINITY, y1 = INFINITY, x2 = -INFINITY, y2 = -INFINITY;
    for (const auto& corner : corners) {
      float x = corner[0] * m[0] + corner[1] * m[1] + m[2];
      float y = corner[0] * m[3] + corner[1] * m[4] + m[5];
      if (perspective) {
        const float w = corner[0] * m[6] + corner[1] * m[7] + m[8];
        x /= w;
        y /= w;
      }
      x1 = std::min(x1, x);
      y1 = std::min(y1, y);
      x2 = std::max(x2, x);
      y2 = std::max(y2, y);
    }
    const float w1 = b[2] * s - b[0] * s, h1 = b[3] * s - b[1] * s;
    b[0] = std::clamp(x1, 0.0f, static_cast<float>(width));
    b[1] = std::clamp(y1, 0.0f, static_cast<float>(height));
    b[2] = std::clamp(x2, 0.0f, static_cast<float>(width));
    b[3] = std::clamp(y2, 0.0f, static_cast<float>(height));
    const float w2 = b[2] - b[0], h2 = b[3] - b[1];
    constexpr float kEps = 1e-16f;
    const float ar = std::max(w2 / (h2 + kEps), h2 / (w2 + kEps));
    if (w2 > 2 && h2 > 2 && w2 * h2 / (w1 * h1 + kEps) > 0.1f && ar < 100) {
      keep.push_back(static_cast<std::uint32_t>(i / 4));
    }
  }
  return keep;
}

}  // namespace feedrate::decode
