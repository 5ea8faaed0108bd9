// The OpenCV kernels that Ultralytics' augmentations run (cv2 4.x on uint8 images), on packed
// RGB, as OpenCV computes them: fixed-point weights and shifts where it uses them. Ultralytics
// stores BGR and converts with COLOR_BGR2HSV; on RGB bytes that is COLOR_RGB2HSV, as here.
// OpenCV's SIMD paths round a few values differently from its scalar code (by 1); these follow
// the vectorised arithmetic where the two differ, and tests allow 1.
//
// cv2_kernels.cc has the resize and HSV, cv2_warp.cc the warps, their inner loops per
// instruction set in cv2_rows.h (the same bytes on every CPU). Thread-safety: pure functions of
// their arguments.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "decode/augment.h"

namespace feedrate::decode::cv2 {

// cvRound: to nearest, halves to even (lrint in the default rounding mode).
inline int cv_round(double v) {
  return static_cast<int>(std::lrint(v));
}

// cv2.resize(src, (dst.width, dst.height), interpolation=INTER_LINEAR): bilinear at source
// (x + 0.5) * scale - 0.5, clamped at the borders, with 11-bit weights; not antialiased.
void resize_linear(const ImageView& src, ImageView dst);

// RandomHSV's look-up tables through cv2.cvtColor(RGB2HSV) and back (HSV2RGB), H in 0..179:
// gains are its drawn r = uniform(-1, 1) * (hgain, sgain, vgain). HSV2RGB as its vectorised
// path computes it (the values truncated; its scalar tail of a row rounds).
void hsv_lut(ImageView image, double gain_h, double gain_s, double gain_v);

// A source of warp(): a canvas of width x height that is `fill` except where up to four tiles
// (packed RGB images) lie. The canvas is split into quadrants at (split_x, split_y), quadrant
// q = (x >= split_x) + 2 * (y >= split_y); tile q shows only inside its rectangle
// [x0, x1) x [y0, y1), which lies in quadrant q, and canvas pixel (x, y) there is its image's
// pixel (x - pad_x, y - pad_y). One image is one tile with the splits beyond the canvas;
// Ultralytics' mosaic is four, split at its centre, so its canvas is never written.
struct WarpSource {
  struct Tile {
    const std::uint8_t* pixels = nullptr;
    int width = 0;                       // of its image (the row stride)
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // empty when x0 >= x1 or y0 >= y1
    int pad_x = 0, pad_y = 0;
  };
  int width = 0, height = 0;
  int split_x = 0, split_y = 0;
  std::array<Tile, 4> tiles{};

  // `image` as the whole canvas.
  static WarpSource of(const ImageView& image);
};

// cv2.warpAffine (perspective false: the first two rows of `m`) or cv2.warpPerspective of
// `src` into `dst` with the forward 3x3 matrix `m` (row-major), INTER_LINEAR with 5 fractional
// bits of the source position and 15-bit weights, BORDER_CONSTANT `fill` (which is also the
// canvas' fill outside the tiles).
void warp(const WarpSource& src, ImageView dst, const std::array<double, 9>& m, bool perspective,
          const std::array<std::uint8_t, 3>& fill);

// The same warp with INTER_NEAREST, of one byte a pixel (a mask plane), fill outside.
void warp_nearest(const std::uint8_t* src, int src_w, int src_h, std::uint8_t* dst, int dst_w,
                  int dst_h, const std::array<double, 9>& m, bool perspective, std::uint8_t fill);

}  // namespace feedrate::decode::cv2
