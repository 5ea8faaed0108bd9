#include "decode/detection_canvas.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace feedrate::decode {

namespace {

void fill_pixels(std::uint8_t* dst, int count, const ImageCanvas::Fill& fill) {
  for (int i = 0; i < count; ++i, dst += 3) std::memcpy(dst, fill.data(), 3);
}

// The output indices [first, last) of a resize of `in` to `out` pixels whose filter taps may
// reach the source's [v0, v1): the others read only the fill. Conservative (PIL's taps of
// output i lie in [centre - support - 0.5, centre + support + 0.5)), so an index kept that reads
// only the fill is computed as the fill anyway.
std::pair<int, int> reaching(int in, int out, int v0, int v1, Interpolation interpolation) {
  const double scale = static_cast<double>(in) / out;
  const double support =
      (interpolation == Interpolation::kBilinear ? 1.0 : 2.0) * std::max(scale, 1.0) + 0.5;
  int first = 0;
  while (first < out && (first + 0.5) * scale + support <= v0) ++first;
  int last = out;
  while (last > first && (last - 0.5) * scale - support >= v1) --last;
  return {first, last};
}

// torch's nearest index (upsample_nearest2d, "nearest"): floor(i * (in / out)) in float32,
// at most in - 1.
void nearest_indices(int in, int out, std::vector<int>& indices) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  indices.resize(static_cast<std::size_t>(out));
  for (int i = 0; i < out; ++i) {
    indices[i] = std::min(static_cast<int>(std::floor(static_cast<float>(i) * scale)), in - 1);
  }
}

}  // namespace

Placement Placement::identity(int width, int height) {
  return Placement{width, height, 0, 0, width, height, 0, 0, width, height, false, false};
}

void Placement::pad(int left, int top, int right, int bottom) {
  x += hflip ? right : left;
  y += vflip ? bottom : top;
  width += left + right;
  height += top + bottom;
}

void Placement::crop(int left, int top, int crop_w, int crop_h) {
  x -= hflip ? width - left - crop_w : left;
  y -= vflip ? height - top - crop_h : top;
  width = crop_w;
  height = crop_h;
  // Clip the source to the new canvas: a later pad must show the fill there, not the source.
  const auto clip = [](int& origin, int& extent, int& buf_origin, int canvas) {
    if (origin < 0) {
      buf_origin -= origin;
      extent += origin;
      origin = 0;
    }
    extent = std::max(0, std::min(extent, canvas - origin));
  };
  clip(x, src_w, buf_x, width);
  clip(y, src_h, buf_y, height);
}

void Placement::flip(bool horizontal, bool vertical) {
  hflip = hflip != horizontal;
  vflip = vflip != vertical;
}

bool Placement::covers() const {
  return x <= 0 && y <= 0 && x + src_w >= width && y + src_h >= height;
}

bool Placement::is_buffer() const {
  return x == 0 && y == 0 && src_w == width && src_h == height && buf_w == width && buf_h == height;
}

Placement::Rect Placement::visible() const {
  return Rect{std::max(x, 0), std::max(y, 0), std::min(x + src_w, width),
              std::min(y + src_h, height)};
}

void ImageCanvas::reset(std::vector<std::uint8_t>& image, int width, int height) {
  source_.swap(image);
  placement_ = Placement::identity(width, height);
  fill_ = {0, 0, 0};
}

void ImageCanvas::pad(int left, int top, int right, int bottom, const Fill& fill) {
  if (left == 0 && top == 0 && right == 0 && bottom == 0) return;
  if (fill != fill_) {
    if (!placement_.covers()) materialize();
    fill_ = fill;
  }
  placement_.pad(left, top, right, bottom);
}

void ImageCanvas::crop(int left, int top, int crop_w, int crop_h) {
  // Outside the canvas, F.crop pads with zeros: pad first, then crop inside.
  const int pad_left = std::max(0, -left), pad_top = std::max(0, -top);
  const int pad_right = std::max(0, left + crop_w - placement_.width);
  const int pad_bottom = std::max(0, top + crop_h - placement_.height);
  pad(pad_left, pad_top, pad_right, pad_bottom, Fill{0, 0, 0});
  placement_.crop(left + pad_left, top + pad_top, crop_w, crop_h);
}

void ImageCanvas::resize(int out_w, int out_h, Interpolation interpolation, Resampler& resampler) {
  const Placement& p = placement_;
  const Placement::Rect v = p.visible();
  const auto [x0, x1] = reaching(p.width, out_w, v.x0, v.x1, interpolation);
  const auto [y0, y1] = reaching(p.height, out_h, v.y0, v.y1, interpolation);
  next_.resize(static_cast<std::size_t>(out_w) * out_h * 3);
  const bool whole = x0 == 0 && y0 == 0 && x1 == out_w && y1 == out_h;
  if (v.empty() || x0 >= x1 || y0 >= y1) {
    fill_pixels(next_.data(), out_w * out_h, fill_);
  } else {
    // The resize of the unmirrored canvas, mirrored left-right by the resampler; top-bottom
    // below. The window of output pixels that reach the source is resampled, the rest filled.
    ResizePlan plan;
    plan.box_w = p.width;
    plan.box_h = p.height;
    plan.out_w = out_w;
    plan.out_h = out_h;
    plan.win_x = x0;
    plan.win_y = y0;
    plan.win_w = x1 - x0;
    plan.win_h = y1 - y0;
    plan.clip_x1 = p.width;
    plan.clip_y1 = p.height;
    plan.flip = p.hflip;
    plan.interpolation = interpolation;
    const SourceRect rect = resampler.prepare(plan);
    const std::uint8_t* src = source_.data() + p.index(p.x, p.y) * 3;
    std::size_t stride = static_cast<std::size_t>(p.buf_w) * 3;
    int src_x0 = p.x, src_y0 = p.y;
    if (rect.x0 < p.x || rect.y0 < p.y || rect.x1 > p.x + p.src_w || rect.y1 > p.y + p.src_h) {
      // The taps read fill too: write the rectangle they read.
      const Placement::Rect r{rect.x0, rect.y0, rect.x1, rect.y1};
      window_.resize(static_cast<std::size_t>(r.x1 - r.x0) * (r.y1 - r.y0) * 3);
      write_rect(r, window_.data());
      src = window_.data();
      stride = static_cast<std::size_t>(r.x1 - r.x0) * 3;
      src_x0 = r.x0;
      src_y0 = r.y0;
    }
    if (whole) {
      resampler.run(src, stride, src_x0, src_y0, next_.data());
    } else {
      resized_.resize(static_cast<std::size_t>(x1 - x0) * (y1 - y0) * 3);
      resampler.run(src, stride, src_x0, src_y0, resized_.data());
      fill_pixels(next_.data(), out_w * out_h, fill_);
      const int left = p.hflip ? out_w - x1 : x0;
      const std::size_t row_bytes = static_cast<std::size_t>(x1 - x0) * 3;
      for (int j = y0; j < y1; ++j) {
        std::memcpy(&next_[(static_cast<std::size_t>(j) * out_w + left) * 3],
                    &resized_[static_cast<std::size_t>(j - y0) * row_bytes], row_bytes);
      }
    }
  }
  if (p.vflip) flip_vertical(ImageView{next_.data(), out_w, out_h});
  source_.swap(next_);
  placement_ = Placement::identity(out_w, out_h);
}

ImageView ImageCanvas::pixels() {
  Placement& p = placement_;
  if (!p.is_buffer()) {
    next_.resize(static_cast<std::size_t>(p.width) * p.height * 3);
    write_rect(Placement::Rect{0, 0, p.width, p.height}, next_.data());
    source_.swap(next_);
    const bool hflip = p.hflip, vflip = p.vflip;
    p = Placement::identity(p.width, p.height);
    p.flip(hflip, vflip);
  }
  return ImageView{source_.data(), p.width, p.height};
}

ImageView ImageCanvas::flat() {
  if (!placement_.is_identity()) materialize();
  return ImageView{source_.data(), placement_.width, placement_.height};
}

void ImageCanvas::write_rect(const Placement::Rect& r, std::uint8_t* dst) const {
  const Placement& p = placement_;
  const Placement::Rect v = p.visible();
  const int rw = r.x1 - r.x0;
  const int c0 = std::max(r.x0, v.x0), c1 = std::min(r.x1, v.x1);
  for (int uy = r.y0; uy < r.y1; ++uy, dst += static_cast<std::size_t>(rw) * 3) {
    if (uy < v.y0 || uy >= v.y1 || c0 >= c1) {
      fill_pixels(dst, rw, fill_);
      continue;
    }
    fill_pixels(dst, c0 - r.x0, fill_);
    std::memcpy(dst + static_cast<std::size_t>(c0 - r.x0) * 3, &source_[p.index(c0, uy) * 3],
                static_cast<std::size_t>(c1 - c0) * 3);
    fill_pixels(dst + static_cast<std::size_t>(c1 - r.x0) * 3, r.x1 - c1, fill_);
  }
}

void ImageCanvas::write(std::uint8_t* out) const {
  const Placement& p = placement_;
  const std::size_t row_bytes = static_cast<std::size_t>(p.width) * 3;
  for (int row = 0; row < p.height; ++row) {
    const int uy = p.vflip ? p.height - 1 - row : row;
    write_rect(Placement::Rect{0, uy, p.width, uy + 1}, out + row * row_bytes);
  }
  if (p.hflip) flip_horizontal(ImageView{out, p.width, p.height});
}

void ImageCanvas::materialize() {
  next_.resize(static_cast<std::size_t>(placement_.width) * placement_.height * 3);
  write(next_.data());
  source_.swap(next_);
  placement_ = Placement::identity(placement_.width, placement_.height);
}

void MaskCanvas::reset(std::vector<std::uint8_t>& masks, int planes, int width, int height,
                       std::uint8_t fill) {
  source_.swap(masks);
  placement_ = Placement::identity(width, height);
  planes_ = planes;
  fill_ = fill;
}

void MaskCanvas::resize(int out_w, int out_h) {
  nearest_indices(placement_.width, out_w, columns_);
  nearest_indices(placement_.height, out_h, rows_);
  resample(out_w, out_h);
}

void MaskCanvas::resample(int out_w, int out_h) {
  const Placement& p = placement_;
  // Canvas index -> unmirrored canvas index inside the source, -1 for the fill.
  const auto to_source = [](std::vector<int>& indices, int extent, bool mirror, int origin,
                            int src_extent) {
    for (int& i : indices) {
      const int u = mirror ? extent - 1 - i : i;
      i = u >= origin && u < origin + src_extent ? u : -1;
    }
  };
  to_source(columns_, p.width, p.hflip, p.x, p.src_w);
  to_source(rows_, p.height, p.vflip, p.y, p.src_h);
  const std::size_t src_plane = static_cast<std::size_t>(p.buf_w) * p.buf_h;
  next_.resize(static_cast<std::size_t>(planes_) * out_w * out_h);
  std::uint8_t* dst = next_.data();
  for (int plane = 0; plane < planes_; ++plane) {
    const std::uint8_t* src = source_.data() + plane * src_plane;
    for (int j = 0; j < out_h; ++j) {
      const int row = rows_[j];
      for (int i = 0; i < out_w; ++i, ++dst) {
        const int col = columns_[i];
        *dst = row >= 0 && col >= 0 ? src[p.index(col, row)] : fill_;
      }
    }
  }
  source_.swap(next_);
  placement_ = Placement::identity(out_w, out_h);
}

void MaskCanvas::keep(const std::vector<std::uint32_t>& indices) {
  const std::size_t plane = static_cast<std::size_t>(placement_.buf_w) * placement_.buf_h;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] != k) {
      std::memmove(&source_[k * plane], &source_[indices[k] * plane], plane);
    }
  }
  planes_ = static_cast<int>(indices.size());
  source_.resize(planes_ * plane);
}

void MaskCanvas::take(std::vector<std::uint8_t>& out) {
  if (!placement_.is_identity()) {
    columns_.resize(static_cast<std::size_t>(placement_.width));
    rows_.resize(static_cast<std::size_t>(placement_.height));
    for (int i = 0; i < placement_.width; ++i) columns_[i] = i;
    for (int j = 0; j < placement_.height; ++j) rows_[j] = j;
    resample(placement_.width, placement_.height);
  }
  out.swap(source_);
  planes_ = 0;
}

}  // namespace feedrate::decode
