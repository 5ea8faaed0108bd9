// cv2.warpAffine / warpPerspective of decode/cv2_kernels.h: the inverse map as OpenCV computes
// it, the bilinear blend of 1/32-pixel positions, and the tiled source a mosaic warps from.
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <vector>

#include "decode/cv2_kernels.h"
#include "decode/cv2_rows.h"

namespace feedrate::decode::cv2 {

namespace {

// cv::warpAffine / warpPerspective's inverse map: for output pixel (x, y), the source position
// in 1/32 pixels (INTER_BITS 5), as they compute it.
class InverseMap {
 public:
  InverseMap(const std::array<double, 9>& m, bool perspective, bool nearest)
      : perspective_(perspective), nearest_(nearest) {
    if (perspective) {
      // cv::invert of the 3x3 matrix (LU; the adjugate over the determinant is equal to it up
      // to rounding).
      const double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7],
                   i = m[8];
      const double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
      const double s = det != 0 ? 1.0 / det : 0;
      inv_ = {(e * i - f * h) * s, (c * h - b * i) * s, (b * f - c * e) * s,
              (f * g - d * i) * s, (a * i - c * g) * s, (c * d - a * f) * s,
              (d * h - e * g) * s, (b * g - a * h) * s, (a * e - b * d) * s};
    } else {
      // warpAffine's inversion of the 2x3 matrix.
      double det = m[0] * m[4] - m[1] * m[3];
      det = det != 0 ? 1.0 / det : 0;
      const double a11 = m[4] * det, a22 = m[0] * det;
      const double a12 = -m[1] * det, a21 = -m[3] * det;
      inv_ = {a11, a12, -a11 * m[2] - a12 * m[5], a21, a22, -a21 * m[2] - a22 * m[5], 0, 0, 1};
    }
  }

  // The source positions of output row y, x in [0, width): in 1/32 pixels (bilinear) or whole
  // pixels (nearest), into sx and sy (width each).
  void row(int y, int width, int* sx, int* sy) {
    const double* m = inv_.data();
    if (perspective_) {
      const double scale = nearest_ ? 1.0 : 32.0;
      for (int x = 0; x < width; ++x) {
        const double x0 = m[0] * x + m[1] * y + m[2];
        const double y0 = m[3] * x + m[4] * y + m[5];
        double w = m[6] * x + m[7] * y + m[8];
        w = w != 0 ? scale / w : 0;
        sx[x] = clamp_int(x0 * w);
        sy[x] = clamp_int(y0 * w);
      }
      return;
    }
    // AB_BITS 10: the row's part and the column's part (warpAffine's adelta and bdelta, the same
    // for every row) in 1/1024 pixels, then shifted.
    constexpr double kScale = 1024;
    if (static_cast<int>(adelta_.size()) != width) {
      adelta_.resize(static_cast<std::size_t>(width));
      bdelta_.resize(static_cast<std::size_t>(width));
      for (int x = 0; x < width; ++x) {
        adelta_[x] = cv_round(m[0] * x * kScale);
        bdelta_[x] = cv_round(m[3] * x * kScale);
      }
    }
    const int round_delta = nearest_ ? 512 : 16;
    const int x0 = cv_round((m[1] * y + m[2]) * kScale) + round_delta;
    const int y0 = cv_round((m[4] * y + m[5]) * kScale) + round_delta;
    const int shift = nearest_ ? 10 : 5;
    for (int x = 0; x < width; ++x) {
      sx[x] = (x0 + adelta_[x]) >> shift;
      sy[x] = (y0 + bdelta_[x]) >> shift;
    }
  }

  // An affine map without rotation or shear (RandomPerspective's default): the source row
  // depends on the output row only, the source column on the output column only.
  bool axis_aligned() const { return !perspective_ && inv_[1] == 0 && inv_[3] == 0; }

 private:
  static int clamp_int(double v) { return cv_round(std::clamp(v, -2147483648.0, 2147483647.0)); }

  std::array<double, 9> inv_{};
  bool perspective_, nearest_;
  std::vector<int> adelta_, bdelta_;
};

}  // namespace

WarpSource WarpSource::of(const ImageView& image) {
  WarpSource source;
  source.width = source.split_x = image.width;
  source.height = source.split_y = image.height;
  source.tiles[0] = Tile{image.pixels, image.width, 0, 0, image.width, image.height, 0, 0};
  return source;
}

namespace {

// The canvas pixel (x, y) of `src`: a tile's pixel or `fill`.
const std::uint8_t* canvas_pixel(const WarpSource& src, int x, int y, const std::uint8_t* fill) {
  const WarpSource::Tile& t = src.tiles[(x >= src.split_x ? 1 : 0) + (y >= src.split_y ? 2 : 0)];
  if (x < t.x0 || x >= t.x1 || y < t.y0 || y >= t.y1) return fill;
  return t.pixels + (static_cast<std::size_t>(y - t.pad_y) * t.width + (x - t.pad_x)) * 3;
}

}  // namespace

namespace {

// The 1/32-pixel bilinear blend of warp() for one output pixel at source position (fx, fy) of
// `source`, outside taps reading `fill`: remapBilinear's 15-bit weights of the 1/32 fractions
// (exact products), which sum to 1 << 15, so the value stays in 0..255.
void blend_pixel(const WarpSource& source, int fx, int fy, const std::uint8_t* fill,
                 std::uint8_t* out) {
  const int sx = fx >> 5, sy = fy >> 5;
  const int ax = fx & 31, ay = fy & 31;
  if (sx >= source.width || sx + 1 < 0 || sy >= source.height || sy + 1 < 0) {
    std::copy_n(fill, 3, out);
    return;
  }
  const int w0 = (32 - ax) * (32 - ay) * 32, w1 = ax * (32 - ay) * 32, w2 = (32 - ax) * ay * 32,
            w3 = ax * ay * 32;
  const std::uint8_t *t0, *t1, *t2, *t3;
  const WarpSource::Tile& t =
      source.tiles[(sx >= source.split_x ? 1 : 0) + (sy >= source.split_y ? 2 : 0)];
  if (sx >= t.x0 && sx + 1 < t.x1 && sy >= t.y0 && sy + 1 < t.y1) {
    // The four taps inside one tile (the common case).
    t0 = t.pixels + (static_cast<std::size_t>(sy - t.pad_y) * t.width + (sx - t.pad_x)) * 3;
    t1 = t0 + 3;
    t2 = t0 + static_cast<std::size_t>(t.width) * 3;
    t3 = t2 + 3;
  } else {
    const auto tap = [&](int px, int py) {
      const bool inside = px >= 0 && px < source.width && py >= 0 && py < source.height;
      return inside ? canvas_pixel(source, px, py, fill) : fill;
    };
    t0 = tap(sx, sy);
    t1 = tap(sx + 1, sy);
    t2 = tap(sx, sy + 1);
    t3 = tap(sx + 1, sy + 1);
  }
  int v[3];
  for (int c = 0; c < 3; ++c) {
    v[c] = (t0[c] * w0 + t1[c] * w1 + t2[c] * w2 + t3[c] * w3 + (1 << 14)) >> 15;
  }
  out[0] = static_cast<std::uint8_t>(v[0]);
  out[1] = static_cast<std::uint8_t>(v[1]);
  out[2] = static_cast<std::uint8_t>(v[2]);
}

// A warp without rotation or shear, as cv::resize is computed: each canvas row the output
// needs is blended horizontally once (and kept for the next output row), then an output row
// is the vertical blend of two such rows: 32 (32 - ay) (t0 (32 - ax) + t1 ax) +
// 32 ay (t2 (32 - ax) + t3 ax) is the sum of the four weighted taps, the same integer. Taps
// outside the canvas or the tiles read the fill, so no pixel is a special case: one whose taps
// are all fill comes out as the fill, as warpAffine writes it.
class AlignedWarp {
 public:
  AlignedWarp(const WarpSource& source, const int* xs, int width, const std::uint8_t* fill)
      : source_(source),
        width_(width),
        kernels_(rows::best()),
        fill_line_((static_cast<std::size_t>(source.width) + 2 * kMargin) * 3 + kSlack),
        line_(fill_line_.size()) {
    for (std::size_t i = 0; i + 3 <= fill_line_.size(); i += 3) {
      std::copy_n(fill, 3, &fill_line_[i]);
    }
    // Each output pixel's taps in line_: the canvas row with two fill pixels on each side, so
    // that both taps of a column left or right of the canvas read the fill.
    offsets_.resize(static_cast<std::size_t>(width));
    weights_.resize(offsets_.size() * 3);
    for (int x = 0; x < width; ++x) {
      const int left = std::clamp(xs[x] >> 5, -kMargin, source.width) + kMargin;
      offsets_[x] = left * 3;
      first_ = std::min(first_, left);
      end_ = std::max(end_, left + 2);
      const int ax = xs[x] & 31;
      for (int c = 0; c < 3; ++c) {
        weights_[x * 3 + c] = static_cast<std::uint32_t>((32 - ax) | ax << 16);
      }
    }
    first_ = std::min(first_, end_);  // no columns: nothing to read
    for (auto& row : rows_) row.assign(weights_.size(), 0);
  }

  // Output row at source row fy (1/32 pixels) into `out`.
  void row(int fy, std::uint8_t* out) {
    const int sy = fy >> 5, ay = fy & 31;
    const int r0 = std::clamp(sy, -1, source_.height);
    const int r1 = std::clamp(sy + 1, -1, source_.height);
    const std::int16_t* top = horizontal(r0, 0);
    const std::int16_t* bottom = r1 == r0 ? top : horizontal(r1, 1);
    kernels_.warp_vertical(top, bottom, ay, width_ * 3, out);
  }

 private:
  static constexpr int kMargin = 2;
  // The bytes past the last pixel that PairsFn reads.
  static constexpr std::size_t kSlack = 2;

  // The horizontal blend of canvas row r (-1 and height: outside, all fill) in slot `k`,
  // computed unless slot k holds it or the other slot does (then the slots swap, so a caller
  // asks for two different rows).
  const std::int16_t* horizontal(int r, int k) {
    if (cached_[k] != r && cached_[1 - k] == r) {
      std::swap(rows_[0], rows_[1]);
      std::swap(cached_[0], cached_[1]);
    }
    if (cached_[k] == r) return rows_[k].data();
    // The pixels [first_, end_) of the canvas row (those the taps read): the fill where no
    // tile lies (left to right: the left tile lies left of the right one).
    std::size_t filled = static_cast<std::size_t>(first_) * 3;
    const auto fill_to = [&](std::size_t end) {
      std::copy(fill_line_.begin() + static_cast<std::ptrdiff_t>(filled),
                fill_line_.begin() + static_cast<std::ptrdiff_t>(end),
                line_.begin() + static_cast<std::ptrdiff_t>(filled));
      filled = end;
    };
    if (r >= 0 && r < source_.height) {
      const int half = r >= source_.split_y ? 2 : 0;
      for (int side = 0; side < 2; ++side) {
        const WarpSource::Tile& t = source_.tiles[half + side];
        const int from = std::max(t.x0 + kMargin, first_), to = std::min(t.x1 + kMargin, end_);
        if (r < t.y0 || r >= t.y1 || from >= to) continue;
        fill_to(static_cast<std::size_t>(from) * 3);
        const std::size_t bytes = static_cast<std::size_t>(to - from) * 3;
        std::memcpy(
            &line_[filled],
            t.pixels +
                (static_cast<std::size_t>(r - t.pad_y) * t.width + (from - kMargin - t.pad_x)) * 3,
            bytes);
        filled += bytes;
      }
    }
    fill_to(static_cast<std::size_t>(end_) * 3);
    kernels_.pairs(line_.data(), offsets_.data(), weights_.data(), width_, 0, rows_[k].data());
    cached_[k] = r;
    return rows_[k].data();
  }

  const WarpSource& source_;
  int width_;
  const rows::Kernels& kernels_;
  std::vector<std::uint8_t> fill_line_, line_;
  std::vector<int> offsets_;
  std::vector<std::uint32_t> weights_;
  int first_ = std::numeric_limits<int>::max(), end_ = 0;  // the pixels of line_ the taps read
  std::array<std::vector<std::int16_t>, 2> rows_;          // at most 32 * 255
  std::array<int, 2> cached_{-2, -2};
};

// A warp with rotation, shear or perspective, a row at a time: the runs of pixels whose four
// taps lie in one tile (and the pixel right of them, which the row kernels read) through the row
// kernels: the top taps' and the bottom taps' horizontal blends, then each pixel's vertical
// blend, the same integers as blend_pixel (see AlignedWarp). The other pixels through
// blend_pixel.
class GeneralWarp {
 public:
  GeneralWarp(const WarpSource& source, int width, const std::uint8_t* fill)
      : source_(source), fill_(fill), kernels_(rows::best()) {
    offsets_.resize(static_cast<std::size_t>(width));
    const std::size_t values = offsets_.size() * 3;
    weights_.resize(values);
    ays_.resize(values);
    top_.resize(values);
    bottom_.resize(values);
    // The rows below which a tap's byte offset in its image, and the next row's, fit in an int.
    for (int q = 0; q < 4; ++q) {
      const WarpSource::Tile& t = source.tiles[q];
      const long long rows = std::numeric_limits<int>::max() / (3LL * std::max(t.width, 1)) - 2;
      last_row_[q] = static_cast<int>(std::min<long long>(t.pad_y + rows, source.height));
    }
  }

  // Output row `out` (width pixels) from the source positions xs, ys (1/32 pixels).
  void row(const int* xs, const int* ys, int width, std::uint8_t* out) {
    for (int x = 0; x < width;) {
      const int q = inner_tile(xs[x], ys[x]);
      int end = x + 1;
      if (q < 0) {
        blend_pixel(source_, xs[x], ys[x], fill_, out + static_cast<std::size_t>(x) * 3);
      } else {
        while (end < width && inner_tile(xs[end], ys[end]) == q) ++end;
        blend_run(source_.tiles[q], xs + x, ys + x, end - x, out + static_cast<std::size_t>(x) * 3);
      }
      x = end;
    }
  }

 private:
  // The tile whose image holds the taps at (fx, fy) and the pixel right of them, or -1.
  int inner_tile(int fx, int fy) const {
    const int sx = fx >> 5, sy = fy >> 5;
    const int q = (sx >= source_.split_x ? 1 : 0) + (sy >= source_.split_y ? 2 : 0);
    const WarpSource::Tile& t = source_.tiles[q];
    const bool inside =
        sx >= t.x0 && sx + 2 < t.x1 && sy >= t.y0 && sy + 1 < t.y1 && sy < last_row_[q];
    return inside ? q : -1;
  }

  void blend_run(const WarpSource::Tile& t, const int* xs, const int* ys, int count,
                 std::uint8_t* out) {
    for (int i = 0; i < count; ++i) {
      const int sx = xs[i] >> 5, sy = ys[i] >> 5, ax = xs[i] & 31;
      offsets_[i] = ((sy - t.pad_y) * t.width + (sx - t.pad_x)) * 3;
      for (int c = 0; c < 3; ++c) {
        weights_[i * 3 + c] = static_cast<std::uint32_t>((32 - ax) | ax << 16);
        ays_[i * 3 + c] = static_cast<std::int16_t>(ys[i] & 31);
      }
    }
    kernels_.pairs(t.pixels, offsets_.data(), weights_.data(), count, 0, top_.data());
    kernels_.pairs(t.pixels + static_cast<std::size_t>(t.width) * 3, offsets_.data(),
                   weights_.data(), count, 0, bottom_.data());
    for (int i = 0; i < count * 3; ++i) {
      out[i] = static_cast<std::uint8_t>(
          (top_[i] * (32 - ays_[i]) + bottom_[i] * ays_[i] + (1 << 9)) >> 10);
    }
  }

  const WarpSource& source_;
  const std::uint8_t* fill_;
  const rows::Kernels& kernels_;
  std::array<int, 4> last_row_{};
  std::vector<int> offsets_;
  std::vector<std::uint32_t> weights_;
  std::vector<std::int16_t> ays_, top_, bottom_;
};

}  // namespace

void warp(const WarpSource& src, ImageView dst, const std::array<double, 9>& m, bool perspective,
          const std::array<std::uint8_t, 3>& fill) {
  if (dst.width < 1 || dst.height < 1) return;  // (the aligned path maps one column a row)
  InverseMap map(m, perspective, false);
  const bool aligned = map.axis_aligned();
  std::vector<int> xs(static_cast<std::size_t>(dst.width)), ys(xs.size());
  // Locals: the byte stores below may alias anything, so members would be read again.
  const WarpSource source = src;
  const std::array<std::uint8_t, 3> border = fill;
  if (aligned) {
    // The source columns are the same for every row, the source row the same along a row.
    map.row(0, dst.width, xs.data(), ys.data());
    AlignedWarp warp(source, xs.data(), dst.width, border.data());
    for (int y = 0; y < dst.height; ++y) {
      map.row(y, 1, xs.data(), ys.data());
      warp.row(ys[0], dst.pixels + static_cast<std::size_t>(y) * dst.width * 3);
    }
    return;
  }
  GeneralWarp warp(source, dst.width, border.data());
  for (int y = 0; y < dst.height; ++y) {
    map.row(y, dst.width, xs.data(), ys.data());
    warp.row(xs.data(), ys.data(), dst.width,
             dst.pixels + static_cast<std::size_t>(y) * dst.width * 3);
  }
}

void warp_nearest(const std::uint8_t* src, int src_w, int src_h, std::uint8_t* dst, int dst_w,
                  int dst_h, const std::array<double, 9>& m, bool perspective, std::uint8_t fill) {
  InverseMap map(m, perspective, true);
  std::vector<int> xs(static_cast<std::size_t>(dst_w)), ys(xs.size());
  for (int y = 0; y < dst_h; ++y) {
    map.row(y, dst_w, xs.data(), ys.data());
    for (int x = 0; x < dst_w; ++x) {
      const int sx = xs[x], sy = ys[x];
      const bool inside = sx >= 0 && sx < src_w && sy >= 0 && sy < src_h;
      dst[static_cast<std::size_t>(y) * dst_w + x] =
          inside ? src[static_cast<std::size_t>(sy) * src_w + sx] : fill;
    }
  }
}

}  // namespace feedrate::decode::cv2
