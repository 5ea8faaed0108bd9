#include "decode/photometric_v2.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace feedrate::decode {

namespace {

// _rgb_to_hsv, the hue shift and _hsv_to_rgb of v2's functional/_color.py on one pixel in
// [0, 1], float32 in its order of operations.
void shift_hue(const float rgb[3], float hue_factor, float out[3]) {
  const float r = rgb[0], g = rgb[1], b = rgb[2];
  const float maxc = std::max({r, g, b});
  const float minc = std::min({r, g, b});
  const bool eqc = maxc == minc;
  const float range = maxc - minc;
  const float s = range / (eqc ? 1.0f : maxc);
  const float divisor = eqc ? 1.0f : range;
  const float rc = (maxc - r) / divisor, gc = (maxc - g) / divisor, bc = (maxc - b) / divisor;
  const float hg = (maxc == g && maxc != r) ? (rc + 2.0f) - bc : 0.0f;
  const float hr = maxc == r ? bc - gc : 0.0f;
  const float hb = (maxc != r && maxc != g) ? (gc + 4.0f) - rc : 0.0f;
  float h = std::fmod((hr + hg + hb) * static_cast<float>(1.0 / 6.0) + 1.0f, 1.0f);
  h += hue_factor;
  h -= std::floor(h);  // remainder_(1.0)
  const float h6 = h * 6.0f;
  const float i_float = std::floor(h6);
  const float f = h6 - i_float;
  int i = static_cast<int>(i_float) % 6;
  if (i < 0) i += 6;
  const float v = maxc;
  const float sxf = s * f;
  const float one_minus_s = 1.0f - s;
  const float q = std::clamp((1.0f - sxf) * v, 0.0f, 1.0f);
  const float t = std::clamp((sxf + one_minus_s) * v, 0.0f, 1.0f);
  const float p = std::clamp(one_minus_s * v, 0.0f, 1.0f);
  const float table[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  std::copy_n(table[i], 3, out);
}

}  // namespace

void adjust_hue_v2(ImageView image, double hue_factor) {
  const auto shift = static_cast<float>(hue_factor);
  const auto to_unit = static_cast<float>(1.0 / 255.0);
  // to_dtype(uint8, scale=True) of a float image: x * (255 + 1 - 1e-3), truncated.
  const auto to_byte = static_cast<float>(255.0 + 1.0 - 1e-3);
  std::uint8_t* px = image.pixels;
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  for (std::size_t k = 0; k < n; ++k, px += 3) {
    const float rgb[3] = {px[0] * to_unit, px[1] * to_unit, px[2] * to_unit};
    float out[3];
    shift_hue(rgb, shift, out);
    for (int c = 0; c < 3; ++c) px[c] = static_cast<std::uint8_t>(out[c] * to_byte);
  }
}

void permute_channels(ImageView image, const std::array<int, 3>& permutation) {
  std::uint8_t* px = image.pixels;
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  for (std::size_t k = 0; k < n; ++k, px += 3) {
    const std::uint8_t in[3] = {px[0], px[1], px[2]};
    for (int c = 0; c < 3; ++c) px[c] = in[permutation[c]];
  }
}

}  // namespace feedrate::decode
