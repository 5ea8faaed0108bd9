// The image between the steps of a detection transform, kept virtual where that is cheaper: a
// materialized source image placed at an integer position on a canvas that is `fill` elsewhere,
// then mirrored. Pads, crops and flips only move the placement, so RandomZoomOut's canvas (up
// to 16 times the image's area) is never written; a resize reads only the canvas pixels its
// filter taps touch and writes the output pixels that read the fill alone as the fill (the
// weights of a tap sum to 1, so the filtered value rounds to the fill exactly).
//
// Instance masks and semantic maps ride along (MaskCanvas): the same placement, planar bytes,
// nearest sampling on a resize as torchvision resizes a Mask (InterpolationMode.NEAREST).
//
// Thread-safety: a canvas holds buffers; one per thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "decode/augment.h"
#include "decode/resize.h"

namespace feedrate::decode {

// Where the source lies on a canvas of width x height: its visible part, src_w x src_h pixels
// starting at pixel (buf_x, buf_y) of a buffer of buf_w x buf_h, has its top-left corner at
// (x, y) of the canvas before the mirroring (a crop clips it, so it never reaches outside the
// canvas); then the canvas is mirrored left-right (hflip) and top-bottom (vflip). Canvas
// pixels the source does not cover are the fill.
struct Placement {
  int width = 0, height = 0;
  int x = 0, y = 0;
  int src_w = 0, src_h = 0;
  int buf_x = 0, buf_y = 0, buf_w = 0, buf_h = 0;
  bool hflip = false, vflip = false;

  static Placement identity(int width, int height);
  // F.pad of the current (mirrored) image: its left side is the unmirrored right side when
  // mirrored.
  void pad(int left, int top, int right, int bottom);
  // F.crop(top, left, crop_h, crop_w) of the current image; a crop reaching outside the canvas
  // exposes fill (torchvision pads there).
  void crop(int left, int top, int crop_w, int crop_h);
  void flip(bool horizontal, bool vertical);
  // The source covers every canvas pixel (no fill is visible).
  bool covers() const;
  // The canvas is the whole buffer, unmirrored.
  bool is_identity() const { return is_buffer() && !hflip && !vflip; }
  // The unmirrored canvas is the whole buffer.
  bool is_buffer() const;
  // The buffer index of the pixel at (ux, uy) of the unmirrored canvas, inside the source.
  std::size_t index(int ux, int uy) const {
    return static_cast<std::size_t>(uy - y + buf_y) * buf_w + (ux - x + buf_x);
  }
  // The source's rectangle in unmirrored canvas coordinates, [x0, x1) x [y0, y1); empty when
  // x0 >= x1 or y0 >= y1.
  struct Rect {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool empty() const { return x0 >= x1 || y0 >= y1; }
  };
  Rect visible() const;
};

// The packed RGB image of a detection transform.
class ImageCanvas {
 public:
  using Fill = std::array<std::uint8_t, 3>;

  // Takes `image` (width x height packed RGB) as the source, swapping buffers: `image` is left
  // with one of the canvas' (content meaningless), so capacities are kept between samples.
  void reset(std::vector<std::uint8_t>& image, int width, int height);

  const Placement& placement() const { return placement_; }
  int width() const { return placement_.width; }
  int height() const { return placement_.height; }

  // Pads / crops with `fill` on the newly exposed canvas; when the canvas already shows a
  // different fill, it is materialized first (one fill colour at a time).
  void pad(int left, int top, int right, int bottom, const Fill& fill);
  void crop(int left, int top, int crop_w, int crop_h);
  void flip(bool horizontal, bool vertical) { placement_.flip(horizontal, vertical); }

  // F.resize of the canvas to out_w x out_h (antialiased, torchvision's tensor kernel).
  void resize(int out_w, int out_h, Interpolation interpolation, Resampler& resampler);

  // The canvas as pixels a pointwise or whole-image step may change: the source becomes the
  // canvas' unmirrored pixels (the fill written where visible); the pending mirroring stays,
  // which such a step does not see.
  ImageView pixels();

  // The canvas as the whole buffer, mirroring done: for a step that moves pixels itself.
  ImageView flat();

  // Writes the canvas (mirrored) to `out`: width() x height() packed RGB.
  void write(std::uint8_t* out) const;

 private:
  // Writes the unmirrored canvas rectangle `r` into `dst` (r's width packed RGB a row).
  void write_rect(const Placement::Rect& r, std::uint8_t* dst) const;
  void materialize();

  std::vector<std::uint8_t> source_, next_, window_, resized_;
  Placement placement_;
  Fill fill_{0, 0, 0};
};

// The mask planes of a detection transform (planes x height x width bytes), moved as the image.
class MaskCanvas {
 public:
  // Takes `masks` (planes x height x width), swapping buffers as ImageCanvas::reset; fill is 0
  // (instance masks) or 255 (a semantic map).
  void reset(std::vector<std::uint8_t>& masks, int planes, int width, int height,
             std::uint8_t fill);
  int planes() const { return planes_; }
  std::uint8_t fill() const { return fill_; }

  void pad(int left, int top, int right, int bottom) { placement_.pad(left, top, right, bottom); }
  void crop(int left, int top, int crop_w, int crop_h) {
    placement_.crop(left, top, crop_w, crop_h);
  }
  void flip(bool horizontal, bool vertical) { placement_.flip(horizontal, vertical); }
  // F.resize(mask, NEAREST): output pixel i reads canvas pixel floor(i * in / out).
  void resize(int out_w, int out_h);
  // Keeps the planes at `indices` (ascending), in that order.
  void keep(const std::vector<std::uint32_t>& indices);
  // Moves the planes, mirrored and filled, at the canvas' size into `out` (swapping buffers);
  // the canvas is empty afterwards.
  void take(std::vector<std::uint8_t>& out);

 private:
  // Samples the canvas: output pixel (i, j) is canvas pixel (columns_[i], rows_[j]) read through
  // the placement (the fill outside the source) into next_, which becomes the source.
  void resample(int out_w, int out_h);

  std::vector<std::uint8_t> source_, next_;
  std::vector<int> columns_, rows_;
  Placement placement_;
  int planes_ = 0;
  std::uint8_t fill_ = 0;
};

}  // namespace feedrate::decode
