#include "decode/hue.h"

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace feedrate::decode {

namespace {

// Four lanes of float32 and their masks (GCC's vector extensions, one SSE2 register): the same
// IEEE operations as on each value alone, so the bytes are those of the scalar arithmetic, four
// pixels at a time.
using Floats = float __attribute__((vector_size(16)));
using Ints = int __attribute__((vector_size(16)));
constexpr int kLanes = 4;
// Pixels a block, planar.
constexpr int kBlock = 64;

Floats splat(float x) {
  return Floats{} + x;
}

// _rgb2hsv, the shift and _hsv2rgb on four pixels in [0, 1], in place. Branches are selects:
// fmod(x, 1) of x in [0, 2) is x or x - 1 (exact), Python's x % 1 of x in [-0.5, 1.5) is
// x + 1, x or x - 1, floor(h * 6) of h in [0, 1] its truncation, and std::max / std::min
// (a < b ? b : a and b < a ? b : a).
template <HueArithmetic kArithmetic>
void shift_lanes(Floats& r, Floats& g, Floats& b, float hue_factor) {
  constexpr bool kV2 = kArithmetic == HueArithmetic::kV2;
  const Floats zero = splat(0.0f), one = splat(1.0f), least = splat(FLT_MIN);
  Floats maxc = r < g ? g : r;
  maxc = maxc < b ? b : maxc;
  Floats minc = g < r ? g : r;
  minc = b < minc ? b : minc;
  const Floats range = maxc - minc;
  // torchvision divides by 1 where maxc == minc, where the dividend is 0: dividing by the
  // least normal float gives the same 0 (values are multiples of 1/255 otherwise).
  const Floats s = range / (maxc < least ? least : maxc);
  const Floats divisor = range < least ? least : range;
  const Floats rc = (maxc - r) / divisor, gc = (maxc - g) / divisor, bc = (maxc - b) / divisor;
  const Ints max_r = maxc == r, max_g = maxc == g;
  const Floats hr = max_r ? bc - gc : zero;
  const Floats hg = (max_g & ~max_r) ? (splat(2.0f) + rc) - bc : zero;
  const Floats hb = (~max_g & ~max_r) ? (splat(4.0f) + gc) - rc : zero;
  const Floats sum = hr + hg + hb;
  Floats h = (kV2 ? sum * splat(static_cast<float>(1.0 / 6.0)) : sum / splat(6.0f)) + one;
  h = h >= one ? h - one : h;
  h = h + splat(hue_factor);
  h = h < zero ? h + one : (h >= one ? h - one : h);
  const Floats v = maxc;
  const Ints sector = __builtin_convertvector(h * splat(6.0f), Ints);
  const Floats f = h * splat(6.0f) - __builtin_convertvector(sector, Floats);
  const Ints i = sector == 6 ? Ints{} : sector;
  const auto unit = [&](Floats x) { return x < zero ? zero : (one < x ? one : x); };
  const Floats p = unit(v * (one - s));
  const Floats q = unit(v * (one - s * f));
  const Floats t = unit(kV2 ? (s * f + (one - s)) * v : v * (one - s * (one - f)));
  // The sector's row of {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}}.
  r = ((i == 0) | (i == 5)) ? v : (i == 1 ? q : (i == 4 ? t : p));
  g = i == 0 ? t : (((i == 1) | (i == 2)) ? v : (i == 3 ? q : p));
  b = i <= 1 ? p : (i == 2 ? t : (i == 5 ? q : v));
}

template <HueArithmetic kArithmetic>
void shift_image(ImageView image, double hue_factor) {
  constexpr bool kV2 = kArithmetic == HueArithmetic::kV2;
  const auto shift = static_cast<float>(hue_factor);
  const auto out_scale = static_cast<float>(kV2 ? 255.0 + 1.0 - 1e-3 : 255.0);
  const auto in_scale = static_cast<float>(1.0 / 255.0);
  // Lanes past a short last block compute on earlier values, finite, and are not stored.
  float planes[3][kBlock] = {};
  std::uint8_t* px = image.pixels;
  const std::size_t total = static_cast<std::size_t>(image.width) * image.height;
  for (std::size_t done = 0; done < total; done += kBlock) {
    const int n = static_cast<int>(std::min<std::size_t>(kBlock, total - done));
    for (int k = 0; k < n; ++k) {
      for (int c = 0; c < 3; ++c) {
        const auto x = static_cast<float>(px[3 * k + c]);
        planes[c][k] = kV2 ? x * in_scale : x / 255.0f;
      }
    }
    for (int k = 0; k < n; k += kLanes) {
      Floats lanes[3];
      for (int c = 0; c < 3; ++c) std::memcpy(&lanes[c], &planes[c][k], sizeof(Floats));
      shift_lanes<kArithmetic>(lanes[0], lanes[1], lanes[2], shift);
      for (int c = 0; c < 3; ++c) std::memcpy(&planes[c][k], &lanes[c], sizeof(Floats));
    }
    for (int k = 0; k < n; ++k) {
      for (int c = 0; c < 3; ++c) {
        px[3 * k + c] = static_cast<std::uint8_t>(planes[c][k] * out_scale);
      }
    }
    px += 3 * n;
  }
}

}  // namespace

void shift_hue(ImageView image, double hue_factor, HueArithmetic arithmetic) {
  if (arithmetic == HueArithmetic::kV2) {
    shift_image<HueArithmetic::kV2>(image, hue_factor);
  } else {
    shift_image<HueArithmetic::kV1>(image, hue_factor);
  }
}

}  // namespace feedrate::decode
