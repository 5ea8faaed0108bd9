#include "decode/cv2_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

namespace feedrate::decode::cv2 {

namespace {

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
    taps.w0[d] = cv_round((1.0f - f) * 2048.0f);
    taps.w1[d] = cv_round(f * 2048.0f);
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
      t[0][i] = cv_round((255 << kShift) / (1.0 * i));
      t[1][i] = cv_round((180 << kShift) / (6.0 * i));
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
      red = ((sector == 0) | (sector == 5)) ? t0 : red;
      green = sector == 3 ? t2 : green;
      green = ((sector == 1) | (sector == 2)) ? t0 : green;
      blue = sector == 5 ? t2 : blue;
      blue = ((sector == 3) | (sector == 4)) ? t0 : blue;
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

}  // namespace feedrate::decode::cv2
