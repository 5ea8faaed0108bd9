#include "decode/hue.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace feedrate::decode {

namespace {

// Python's x % 1.0 (torch.remainder): the result has the divisor's sign.
float unit_remainder(float x) {
  const float r = std::fmod(x, 1.0f);
  return r < 0 ? r + 1.0f : r;
}

// _rgb2hsv, the shift and _hsv2rgb on one pixel in [0, 1].
template <HueArithmetic kArithmetic>
void shift_pixel(float r, float g, float b, float hue_factor, float out[3]) {
  constexpr bool kV2 = kArithmetic == HueArithmetic::kV2;
  const float maxc = std::max({r, g, b});
  const float minc = std::min({r, g, b});
  const bool eqc = maxc == minc;
  const float range = maxc - minc;
  const float s = range / (eqc ? 1.0f : maxc);
  const float divisor = eqc ? 1.0f : range;
  const float rc = (maxc - r) / divisor, gc = (maxc - g) / divisor, bc = (maxc - b) / divisor;
  const float hr = maxc == r ? bc - gc : 0.0f;
  const float hg = (maxc == g && maxc != r) ? 2.0f + rc - bc : 0.0f;
  const float hb = (maxc != g && maxc != r) ? 4.0f + gc - rc : 0.0f;
  const float sum = hr + hg + hb;
  float h = std::fmod((kV2 ? sum * static_cast<float>(1.0 / 6.0) : sum / 6.0f) + 1.0f, 1.0f);
  h = unit_remainder(h + hue_factor);
  const float v = maxc;
  const float i_float = std::floor(h * 6.0f);
  const float f = h * 6.0f - i_float;
  int i = static_cast<int>(i_float) % 6;
  if (i < 0) i += 6;
  const float p = std::clamp(v * (1.0f - s), 0.0f, 1.0f);
  const float q = std::clamp(v * (1.0f - s * f), 0.0f, 1.0f);
  const float t =
      std::clamp(kV2 ? (s * f + (1.0f - s)) * v : v * (1.0f - s * (1.0f - f)), 0.0f, 1.0f);
  const float table[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  std::copy_n(table[i], 3, out);
}

template <HueArithmetic kArithmetic>
void shift_image(ImageView image, double hue_factor) {
  constexpr bool kV2 = kArithmetic == HueArithmetic::kV2;
  const auto shift = static_cast<float>(hue_factor);
  const auto to_unit = [](std::uint8_t x) {
    return kV2 ? x * static_cast<float>(1.0 / 255.0) : static_cast<float>(x) / 255.0f;
  };
  const auto out_scale = static_cast<float>(kV2 ? 255.0 + 1.0 - 1e-3 : 255.0);
  std::uint8_t* px = image.pixels;
  const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
  for (std::size_t k = 0; k < n; ++k, px += 3) {
    float rgb[3];
    shift_pixel<kArithmetic>(to_unit(px[0]), to_unit(px[1]), to_unit(px[2]), shift, rgb);
    for (int c = 0; c < 3; ++c) px[c] = static_cast<std::uint8_t>(rgb[c] * out_scale);
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
