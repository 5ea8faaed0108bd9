#include "decode/cv2_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

namespace feedrate::decode::cv2 {

namespace {

// cvRound: to nearest, halves to even (lrint in the default rounding mode).
int round_int(double v) {
  return static_cast<int>(std::lrint(v));
}

// One axis of cv::resize's INTER_LINEAR table: the first source index and its two 11-bit
// weights (the second tap is index + 1; its weight is 0 at the borders).
struct LinearTaps {
  std::vector<int> index;
  std::vector<int> w0, w1;
};

LinearTaps linear_taps(int src, int dst) {
  LinearTaps taps;
  taps.index.resize(static_cast<std::size_t>(dst));
  taps.w0.resize(static_cast<std::size_t>(dst));
  taps.w1.resize(static_cast<std::size_t>(dst));
  const double scale = 1.0 / (static_cast<double>(dst) / src);
  for (int d = 0; d < dst; ++d) {
    float f = static_cast<float>((d + 0.5) * scale - 0.5);
    int s = static_cast<int>(std::floor(f));
    f -= static_cast<float>(s);
    if (s < 0) f = 0, s = 0;
    if (s >= src - 1) f = 0, s = src - 1;
    taps.index[d] = s;
    taps.w0[d] = round_int((1.0f - f) * 2048.0f);
    taps.w1[d] = round_int(f * 2048.0f);
  }
  return taps;
}

// Four lanes (GCC vector extensions, as decode/hue.cc).
using V4f = float __attribute__((vector_size(16)));
using V4i = int __attribute__((vector_size(16)));

// _mm_mulhi_epi16: the high 16 bits of a signed 16 x 16 product.
int mul_hi(int a, int b) {
  return (a * b) >> 16;
}

std::uint8_t saturate(int v) {
  return static_cast<std::uint8_t>(std::clamp(v, 0, 255));
}

}  // namespace

void resize_linear(const ImageView& src, ImageView dst) {
  const LinearTaps xs = linear_taps(src.width, dst.width);
  const LinearTaps ys = linear_taps(src.height, dst.height);
  const std::size_t row = static_cast<std::size_t>(dst.width) * 3;
  // Horizontal pass of a source row into ints (weights sum to 2048).
  std::vector<int> rows[2];
  const auto horizontal = [&](int sy, std::vector<int>& out) {
    out.resize(row);
    const std::uint8_t* s = src.pixels + static_cast<std::size_t>(sy) * src.width * 3;
    for (int d = 0; d < dst.width; ++d) {
      const std::uint8_t* p = s + static_cast<std::size_t>(xs.index[d]) * 3;
      const bool second = xs.index[d] + 1 < src.width;
      for (int c = 0; c < 3; ++c) {
        out[d * 3 + c] = p[c] * xs.w0[d] + (second ? p[3 + c] * xs.w1[d] : 0);
      }
    }
  };
  int cached[2] = {-1, -1};
  for (int d = 0; d < dst.height; ++d) {
    const int sy0 = ys.index[d];
    const int sy1 = std::min(sy0 + 1, src.height - 1);
    for (int k = 0; k < 2; ++k) {
      const int sy = k == 0 ? sy0 : sy1;
      if (cached[k] != sy) {
        if (cached[1 - k] == sy) {
          rows[k] = rows[1 - k];
        } else {
          horizontal(sy, rows[k]);
        }
        cached[k] = sy;
      }
    }
    // VResizeLinearVec_32s8u: ((S0 >> 4) * b0 >> 16) + ((S1 >> 4) * b1 >> 16), rounded >> 2.
    std::uint8_t* out = dst.pixels + static_cast<std::size_t>(d) * row;
    for (std::size_t i = 0; i < row; ++i) {
      const int sum = mul_hi(rows[0][i] >> 4, ys.w0[d]) + mul_hi(rows[1][i] >> 4, ys.w1[d]);
      out[i] = saturate((sum + 2) >> 2);
    }
  }
}

void hsv_lut(ImageView image, double gain_h, double gain_s, double gain_v) {
  // RandomHSV's tables, in float64 as numpy computes them, truncated to uint8.
  std::uint8_t lut_h[256], lut_s[256], lut_v[256];
  for (int x = 0; x < 256; ++x) {
    const double h = std::fmod(x + gain_h * 180, 180.0);
    lut_h[x] = static_cast<std::uint8_t>(h < 0 ? h + 180 : h);
    lut_s[x] = static_cast<std::uint8_t>(std::clamp(x * (gain_s + 1), 0.0, 255.0));
    lut_v[x] = static_cast<std::uint8_t>(std::clamp(x * (gain_v + 1), 0.0, 255.0));
  }
  lut_s[0] = 0;
  // RGB2HSV_b's tables (hsv_shift 12, hue range 180).
  constexpr int kShift = 12;
  static const auto tables = [] {
    std::array<std::array<int, 256>, 2> t{};
    for (int i = 1; i < 256; ++i) {
      t[0][i] = round_int((255 << kShift) / (1.0 * i));
      t[1][i] = round_int((180 << kShift) / (6.0 * i));
    }
    return t;
  }();
  const auto& sdiv = tables[0];
  const auto& hdiv = tables[1];
  // In blocks: RGB2HSV and the tables pixel by pixel, then HSV2RGB_b's vectorised arithmetic
  // (HSV2RGB_simd) four pixels at a time: floats, the hue scaled by 6/180, the
  // sector from the truncated hue, each value times 255 truncated.
  constexpr std::size_t kBlock = 512;  // a multiple of 4
  float hs[kBlock] = {}, ss[kBlock] = {}, vs[kBlock] = {};
  int out[3][kBlock];
  std::uint8_t* p = image.pixels;
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  for (std::size_t first = 0; first < n; first += kBlock) {
    const std::size_t count = std::min(kBlock, n - first);
    const std::uint8_t* q = p + first * 3;
    for (std::size_t k = 0; k < count; ++k, q += 3) {
      const int r = q[0], g = q[1], b = q[2];
      const int v = std::max({r, g, b});
      const int diff = v - std::min({r, g, b});
      const int s = (diff * sdiv[v] + (1 << (kShift - 1))) >> kShift;
      int h = v == r ? g - b : v == g ? b - r + 2 * diff : r - g + 4 * diff;
      h = (h * hdiv[diff] + (1 << (kShift - 1))) >> kShift;
      if (h < 0) h += 180;
      hs[k] = static_cast<float>(lut_h[std::min(h, 255)]) * (6.0f / 180.0f);
      ss[k] = static_cast<float>(lut_s[s]) * (1.0f / 255.0f);
      vs[k] = static_cast<float>(lut_v[v]) * (1.0f / 255.0f);
    }
    // Past `count`, the last lanes compute values left from before (finite), never written.
    for (std::size_t k = 0; k < count; k += 4) {
      V4f hh, sat, val;
      std::memcpy(&hh, &hs[k], sizeof hh);
      std::memcpy(&sat, &ss[k], sizeof sat);
      std::memcpy(&val, &vs[k], sizeof val);
      const V4i sector = __builtin_convertvector(hh, V4i);
      const V4f f = hh - __builtin_convertvector(sector, V4f);
      const V4f t0 = val, t1 = val * (1.0f - sat), t2 = val * (1.0f - sat * f),
                t3 = val * (1.0f - sat * (1.0f - f));
      // The hue is below 6 (at most 179 * 6 / 180): the sector is 0..5. OpenCV's sector_data
      // (which of t0..t3 is b, g, r) as selects.
      V4f red = sector == 1 ? t2 : t1, green = sector == 0 ? t3 : t1, blue = sector == 2 ? t3 : t1;
      red = sector == 4 ? t3 : red;
      red = (sector == 0) | (sector == 5) ? t0 : red;
      green = sector == 3 ? t2 : green;
      green = (sector == 1) | (sector == 2) ? t0 : green;
      blue = sector == 5 ? t2 : blue;
      blue = (sector == 3) | (sector == 4) ? t0 : blue;
      const V4i rgb[3] = {__builtin_convertvector(red * 255.0f, V4i),
                          __builtin_convertvector(green * 255.0f, V4i),
                          __builtin_convertvector(blue * 255.0f, V4i)};
      for (int c = 0; c < 3; ++c) std::memcpy(&out[c][k], &rgb[c], sizeof rgb[c]);
    }
    std::uint8_t* o = p + first * 3;
    for (std::size_t k = 0; k < count; ++k, o += 3) {
      for (int c = 0; c < 3; ++c) o[c] = saturate(out[c][k]);
    }
  }
}

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
        adelta_[x] = round_int(m[0] * x * kScale);
        bdelta_[x] = round_int(m[3] * x * kScale);
      }
    }
    const int round_delta = nearest_ ? 512 : 16;
    const int x0 = round_int((m[1] * y + m[2]) * kScale) + round_delta;
    const int y0 = round_int((m[4] * y + m[5]) * kScale) + round_delta;
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
  static int clamp_int(double v) { return round_int(std::clamp(v, -2147483648.0, 2147483647.0)); }

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

// One output row of an axis-aligned warp whose taps all lie in source row sy and sy + 1 at
// fraction ay: the blend split into a horizontal and a vertical pass, which is the same integer
// (32 (32 - ay) (t0 (32 - ax) + t1 ax) + 32 ay (t2 (32 - ax) + t3 ax) is the sum of the four
// weighted taps), reading the two rows of the left and right tile directly. Pixels whose taps
// straddle a tile's edge go through blend_pixel.
void blend_row(const WarpSource& source, const int* xs, int fy, int width, const std::uint8_t* fill,
               std::uint8_t* out) {
  const int sy = fy >> 5, ay = fy & 31;
  const int half = sy >= source.split_y ? 2 : 0;
  const std::uint8_t* rows[2] = {nullptr, nullptr};  // each side's row sy at canvas column 0
  std::ptrdiff_t below[2] = {0, 0};                  // the offset of its row sy + 1
  for (int side = 0; side < 2; ++side) {
    const WarpSource::Tile& t = source.tiles[half + side];
    if (sy >= t.y0 && sy + 1 < t.y1 && t.x0 < t.x1) {
      rows[side] = t.pixels + static_cast<std::ptrdiff_t>(sy - t.pad_y) * t.width * 3;
      below[side] = static_cast<std::ptrdiff_t>(t.width) * 3;
    }
  }
  for (int x = 0; x < width; ++x, out += 3) {
    const int sx = xs[x] >> 5, ax = xs[x] & 31;
    const int side = sx >= source.split_x ? 1 : 0;
    const WarpSource::Tile& t = source.tiles[half + side];
    if (rows[side] == nullptr || sx < t.x0 || sx + 1 >= t.x1) {
      blend_pixel(source, xs[x], fy, fill, out);
      continue;
    }
    const std::uint8_t* p = rows[side] + static_cast<std::ptrdiff_t>(sx - t.pad_x) * 3;
    const std::uint8_t* q = p + below[side];
    int v[3];
    for (int c = 0; c < 3; ++c) {
      const int top = p[c] * (32 - ax) + p[c + 3] * ax;
      const int bottom = q[c] * (32 - ax) + q[c + 3] * ax;
      v[c] = ((top * (32 - ay) + bottom * ay) * 32 + (1 << 14)) >> 15;
    }
    out[0] = static_cast<std::uint8_t>(v[0]);
    out[1] = static_cast<std::uint8_t>(v[1]);
    out[2] = static_cast<std::uint8_t>(v[2]);
  }
}

}  // namespace

void warp(const WarpSource& src, ImageView dst, const std::array<double, 9>& m, bool perspective,
          const std::array<std::uint8_t, 3>& fill) {
  InverseMap map(m, perspective, false);
  const bool aligned = map.axis_aligned();
  std::vector<int> xs(static_cast<std::size_t>(dst.width)), ys(xs.size());
  // Locals: the byte stores below may alias anything, so members would be read again.
  const WarpSource source = src;
  const std::array<std::uint8_t, 3> border = fill;
  for (int y = 0; y < dst.height; ++y) {
    map.row(y, dst.width, xs.data(), ys.data());
    std::uint8_t* out = dst.pixels + static_cast<std::size_t>(y) * dst.width * 3;
    // Axis-aligned: the row's taps lie in source rows sy, sy + 1 (ys are all equal); when those
    // are in one quadrant row and inside the canvas, blend_row reads them directly.
    const int sy = ys[0] >> 5;
    if (aligned && sy >= 0 && sy + 1 < source.height &&
        (sy + 1 < source.split_y || sy >= source.split_y)) {
      blend_row(source, xs.data(), ys[0], dst.width, border.data(), out);
      continue;
    }
    for (int x = 0; x < dst.width; ++x, out += 3) {
      blend_pixel(source, xs[x], ys[x], border.data(), out);
    }
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
