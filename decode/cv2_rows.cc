// The portable row kernels of decode/cv2_rows.h and the choice of a set.
#include "decode/cv2_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "decode/cv2_kernels.h"

namespace feedrate::decode::cv2::rows {

namespace {

// Four lanes (GCC vector extensions, as decode/hue.cc).
using V4f = float __attribute__((vector_size(16)));
using V4i = int __attribute__((vector_size(16)));

std::uint8_t saturate(int v) {
  return static_cast<std::uint8_t>(std::clamp(v, 0, 255));
}

// In blocks: RGB2HSV and the tables pixel by pixel, then HSV2RGB four pixels at a time.
void hsv(std::uint8_t* pixels, std::size_t n, const HsvTables& t) {
  constexpr int kShift = 12;
  constexpr std::size_t kBlock = 512;  // a multiple of 4
  float hs[kBlock] = {}, ss[kBlock] = {}, vs[kBlock] = {};
  int out[3][kBlock];
  for (std::size_t first = 0; first < n; first += kBlock) {
    const std::size_t count = std::min(kBlock, n - first);
    const std::uint8_t* q = pixels + first * 3;
    for (std::size_t k = 0; k < count; ++k, q += 3) {
      const int r = q[0], g = q[1], b = q[2];
      const int v = std::max({r, g, b});
      const int diff = v - std::min({r, g, b});
      const int s = (diff * t.sdiv[v] + (1 << (kShift - 1))) >> kShift;
      int h = v == r ? g - b : v == g ? b - r + 2 * diff : r - g + 4 * diff;
      h = (h * t.hdiv[diff] + (1 << (kShift - 1))) >> kShift;
      if (h < 0) h += 180;
      hs[k] = t.h[std::min(h, 255)];
      ss[k] = t.s[s];
      vs[k] = t.v[v];
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
    std::uint8_t* o = pixels + first * 3;
    for (std::size_t k = 0; k < count; ++k, o += 3) {
      for (int c = 0; c < 3; ++c) o[c] = saturate(out[c][k]);
    }
  }
}

void pairs(const std::uint8_t* line, const int* offsets, const std::uint32_t* weights, int pixels,
           int shift, std::int16_t* out) {
  for (int x = 0; x < pixels; ++x, weights += 3, out += 3) {
    const std::uint8_t* p = line + offsets[x];
    for (int c = 0; c < 3; ++c) {
      out[c] = static_cast<std::int16_t>((p[c] * static_cast<int>(weights[c] & 0xffff) +
                                          p[c + 3] * static_cast<int>(weights[c] >> 16)) >>
                                         shift);
    }
  }
}

void warp_vertical(const std::int16_t* top, const std::int16_t* bottom, int ay, int count,
                   std::uint8_t* out) {
  for (int i = 0; i < count; ++i) {
    out[i] = static_cast<std::uint8_t>((top[i] * (32 - ay) + bottom[i] * ay + (1 << 9)) >> 10);
  }
}

void resize_vertical(const std::int16_t* top, const std::int16_t* bottom, int b0, int b1, int count,
                     std::uint8_t* out) {
  for (int i = 0; i < count; ++i) {
    const int sum = ((top[i] * b0) >> 16) + ((bottom[i] * b1) >> 16);
    out[i] = saturate((sum + 2) >> 2);
  }
}

}  // namespace

HsvTables hsv_tables(double gain_h, double gain_s, double gain_v) {
  // RGB2HSV_b's tables (hsv_shift 12, hue range 180), the same for every image.
  constexpr int kShift = 12;
  static const HsvTables divisions = [] {
    HsvTables t;
    for (int i = 1; i < 256; ++i) {
      t.sdiv[i] = cv_round((255 << kShift) / (1.0 * i));
      t.hdiv[i] = cv_round((180 << kShift) / (6.0 * i));
    }
    return t;
  }();
  // RandomHSV's tables, in float64 as numpy computes them, truncated to uint8, as the floats
  // HSV2RGB starts from. (The saturation's entry 0, which Ultralytics sets to 0, is 0 anyway.)
  HsvTables tables = divisions;
  std::array<int, 256> lut_h{};
  tables.gain_s = static_cast<float>(gain_s + 1);
  tables.gain_v = static_cast<float>(gain_v + 1);
  tables.float_gains = true;
  for (int x = 0; x < 256; ++x) {
    const double h = std::fmod(x + gain_h * 180, 180.0);
    lut_h[x] = static_cast<std::uint8_t>(h < 0 ? h + 180 : h);
    const auto lut_s = static_cast<std::uint8_t>(std::clamp(x * (gain_s + 1), 0.0, 255.0));
    const auto lut_v = static_cast<std::uint8_t>(std::clamp(x * (gain_v + 1), 0.0, 255.0));
    tables.h[x] = static_cast<float>(lut_h[x]) * (6.0f / 180.0f);
    tables.s[x] = static_cast<float>(lut_s) * (1.0f / 255.0f);
    tables.v[x] = static_cast<float>(lut_v) * (1.0f / 255.0f);
    // The float products truncate alike but where one lies within float's rounding of a whole.
    const auto in_float = [x](float gain) {
      return static_cast<int>(std::clamp(static_cast<float>(x) * gain, 0.0f, 255.0f));
    };
    tables.float_gains =
        tables.float_gains && in_float(tables.gain_s) == lut_s && in_float(tables.gain_v) == lut_v;
  }
  // The hue table as a turn where it is one (a shift by a whole number of units, always but
  // where a fraction of the shift rounds across a unit).
  const int turn = lut_h[0];
  bool is_turn = turn < 180;
  for (int x = 0; x < 256 && is_turn; ++x) is_turn = lut_h[x] == (x + turn) % 180;
  if (is_turn) tables.hue_turn = turn;
  return tables;
}

const Kernels& baseline() {
  static const Kernels kernels{"baseline", hsv, pairs, warp_vertical, resize_vertical};
  return kernels;
}

const Kernels& best() {
  static const Kernels& chosen = avx2() != nullptr ? *avx2() : baseline();
  return chosen;
}

}  // namespace feedrate::decode::cv2::rows
