#include "decode/augment.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "decode/hue.h"

namespace feedrate::decode {
namespace {

std::size_t pixel_count(const ImageView& image) {
  return static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height);
}

// torch's float -> uint8 conversion of a value already clamped to 0..255: truncation.
std::uint8_t truncate_to_byte(float value) {
  return static_cast<std::uint8_t>(value);
}

float clamp_byte(float value) {
  return std::clamp(value, 0.0f, 255.0f);
}

// rgb_to_grayscale's luma, in float32 as torch computes it, before the uint8 conversion.
float luma(const std::uint8_t* p) {
  return 0.2989f * static_cast<float>(p[0]) + 0.587f * static_cast<float>(p[1]) +
         0.114f * static_cast<float>(p[2]);
}

// _blend(img, other, ratio) for each channel value: ratio * a + (1 - ratio) * b, clamped and
// truncated, with the ratio and its complement rounded to float32 as torch's scalars are.
struct Blend {
  explicit Blend(double ratio) : a(static_cast<float>(ratio)), b(static_cast<float>(1.0 - ratio)) {}
  std::uint8_t operator()(float x, float y) const {
    return truncate_to_byte(clamp_byte(a * x + b * y));
  }
  float a, b;
};

// Maps every channel value through `lut`: the same bytes as computing each value, as cheap as
// a table read, for operations that are functions of the value alone.
void apply_lut(ImageView image, const std::array<std::uint8_t, 256>& lut) {
  std::uint8_t* p = image.pixels;
  for (std::size_t i = 0, n = pixel_count(image) * 3; i < n; ++i) p[i] = lut[p[i]];
}

template <typename Fn>
std::array<std::uint8_t, 256> table_of(Fn fn) {
  std::array<std::uint8_t, 256> lut;
  for (int v = 0; v < 256; ++v) lut[v] = fn(static_cast<std::uint8_t>(v));
  return lut;
}

}  // namespace

const char* augment_op_name(AugmentOp op) {
  switch (op) {
    case AugmentOp::kIdentity:
      return "Identity";
    case AugmentOp::kShearX:
      return "ShearX";
    case AugmentOp::kShearY:
      return "ShearY";
    case AugmentOp::kTranslateX:
      return "TranslateX";
    case AugmentOp::kTranslateY:
      return "TranslateY";
    case AugmentOp::kRotate:
      return "Rotate";
    case AugmentOp::kBrightness:
      return "Brightness";
    case AugmentOp::kColor:
      return "Color";
    case AugmentOp::kContrast:
      return "Contrast";
    case AugmentOp::kSharpness:
      return "Sharpness";
    case AugmentOp::kPosterize:
      return "Posterize";
    case AugmentOp::kSolarize:
      return "Solarize";
    case AugmentOp::kAutoContrast:
      return "AutoContrast";
    case AugmentOp::kEqualize:
      return "Equalize";
    case AugmentOp::kInvert:
      return "Invert";
  }
  return "unknown";
}

void flip_horizontal(ImageView image) {
  for (int y = 0; y < image.height; ++y) {
    std::uint8_t* row = image.pixels + static_cast<std::size_t>(y) * image.width * 3;
    for (int l = 0, r = image.width - 1; l < r; ++l, --r) {
      std::swap_ranges(row + 3 * l, row + 3 * l + 3, row + 3 * r);
    }
  }
}

void flip_vertical(ImageView image) {
  const std::size_t row_bytes = static_cast<std::size_t>(image.width) * 3;
  for (int t = 0, b = image.height - 1; t < b; ++t, --b) {
    std::swap_ranges(image.pixels + t * row_bytes, image.pixels + (t + 1) * row_bytes,
                     image.pixels + b * row_bytes);
  }
}

void to_grayscale(ImageView image) {
  std::uint8_t* p = image.pixels;
  for (std::size_t i = 0, n = pixel_count(image); i < n; ++i, p += 3) {
    const std::uint8_t l = truncate_to_byte(luma(p));
    p[0] = p[1] = p[2] = l;
  }
}

void adjust_brightness(ImageView image, double factor) {
  const Blend blend(factor);
  apply_lut(image, table_of([&](std::uint8_t v) { return blend(v, 0.0f); }));
}

void adjust_saturation(ImageView image, double factor) {
  const Blend blend(factor);
  std::uint8_t* p = image.pixels;
  for (std::size_t i = 0, n = pixel_count(image); i < n; ++i, p += 3) {
    const float gray = truncate_to_byte(luma(p));
    for (int c = 0; c < 3; ++c) p[c] = blend(p[c], gray);
  }
}

void adjust_contrast(ImageView image, double factor) {
  const std::size_t n = pixel_count(image);
  if (n == 0) return;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += truncate_to_byte(luma(image.pixels + 3 * i));
  const auto mean = static_cast<float>(sum / static_cast<double>(n));
  const Blend blend(factor);
  apply_lut(image, table_of([&](std::uint8_t v) { return blend(v, mean); }));
}

void adjust_hue(ImageView image, double hue_factor) {
  shift_hue(image, hue_factor, HueArithmetic::kV1);
}

void permute_channels(ImageView image, const std::array<int, 3>& permutation) {
  std::uint8_t* p = image.pixels;
  for (std::size_t i = 0, n = pixel_count(image); i < n; ++i, p += 3) {
    const std::uint8_t in[3] = {p[0], p[1], p[2]};
    for (int c = 0; c < 3; ++c) p[c] = in[permutation[c]];
  }
}

void adjust_sharpness(ImageView image, double factor, AugmentScratch& scratch) {
  const int w = image.width, h = image.height;
  if (w <= 2 || h <= 2) return;
  // _blurred_degenerate_image: a 3x3 smoothing kernel (centre 5, the rest 1, over 13) on the
  // interior, rounded; the border keeps its pixels. torchvision sums in float32, but S / 13 of
  // an integer sum S is never within 1/26 of a half, so rounding the exact quotient
  // ((2 S + 13) / 26) gives the same bytes.
  const std::size_t row = static_cast<std::size_t>(w) * 3;
  scratch.bytes.assign(image.pixels, image.pixels + row * h);
  const std::uint8_t* src = scratch.bytes.data();
  const Blend blend(factor);
  for (int y = 1; y < h - 1; ++y) {
    const std::uint8_t* above = src + (y - 1) * row;
    const std::uint8_t* here = src + y * row;
    const std::uint8_t* below = src + (y + 1) * row;
    std::uint8_t* out = image.pixels + y * row;
    for (std::size_t i = 3; i < row - 3; ++i) {
      const int sum = above[i - 3] + above[i] + above[i + 3] + here[i - 3] + 5 * here[i] +
                      here[i + 3] + below[i - 3] + below[i] + below[i + 3];
      out[i] = blend(here[i], static_cast<float>((2 * sum + 13) / 26));
    }
  }
}

void posterize(ImageView image, int bits) {
  const auto mask = static_cast<std::uint8_t>(-(1 << (8 - std::clamp(bits, 0, 8))) & 0xff);
  for (std::size_t i = 0, n = pixel_count(image) * 3; i < n; ++i) image.pixels[i] &= mask;
}

void solarize(ImageView image, double threshold) {
  const auto t = static_cast<float>(threshold);
  apply_lut(image, table_of([&](std::uint8_t v) {
              return static_cast<float>(v) >= t ? static_cast<std::uint8_t>(255 - v) : v;
            }));
}

void invert(ImageView image) {
  for (std::size_t i = 0, n = pixel_count(image) * 3; i < n; ++i) {
    image.pixels[i] = static_cast<std::uint8_t>(255 - image.pixels[i]);
  }
}

void autocontrast(ImageView image) {
  const std::size_t n = pixel_count(image);
  std::uint8_t lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
  const std::uint8_t* p = image.pixels;
  for (std::size_t i = 0; i < n; ++i, p += 3) {
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], p[c]);
      hi[c] = std::max(hi[c], p[c]);
    }
  }
  std::array<std::uint8_t, 256> luts[3];
  for (int c = 0; c < 3; ++c) {
    // An infinite scale (a flat channel): torchvision keeps the channel.
    const float minimum = lo[c] >= hi[c] ? 0.0f : lo[c];
    const float scale = lo[c] >= hi[c] ? 1.0f : 255.0f / (static_cast<float>(hi[c]) - minimum);
    luts[c] = table_of([&](std::uint8_t v) {
      return truncate_to_byte(clamp_byte((static_cast<float>(v) - minimum) * scale));
    });
  }
  std::uint8_t* q = image.pixels;
  for (std::size_t i = 0; i < n; ++i, q += 3) {
    for (int c = 0; c < 3; ++c) q[c] = luts[c][q[c]];
  }
}

void equalize(ImageView image) {
  const std::size_t n = pixel_count(image);
  for (int c = 0; c < 3; ++c) {
    std::array<std::int64_t, 256> hist{};
    for (std::size_t i = 0; i < n; ++i) ++hist[image.pixels[3 * i + c]];
    // _scale_channel: step = (pixels outside the last non-empty bin) // 255.
    int last = 255;
    while (last > 0 && hist[last] == 0) --last;
    std::int64_t others = 0;
    for (int k = 0; k < last; ++k) others += hist[k];
    const std::int64_t step = others / 255;
    if (step == 0) continue;
    std::array<std::uint8_t, 256> lut{};
    std::int64_t cumulative = 0;
    for (int k = 0; k < 256; ++k) {
      // lut[k] = (cumsum[k - 1] + step // 2) // step, lut[0] = 0, clamped to 255.
      lut[k] =
          static_cast<std::uint8_t>(std::min<std::int64_t>((cumulative + step / 2) / step, 255));
      if (k == 0) lut[k] = 0;
      cumulative += hist[k];
    }
    for (std::size_t i = 0; i < n; ++i) image.pixels[3 * i + c] = lut[image.pixels[3 * i + c]];
  }
}

std::array<double, 6> inverse_affine_matrix(double center_x, double center_y, double angle,
                                            double translate_x, double translate_y, double scale,
                                            double shear_x, double shear_y) {
  const double deg = std::numbers::pi / 180.0;
  const double rot = angle * deg, sx = shear_x * deg, sy = shear_y * deg;
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
  std::array<double, 6> m{d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0};
  m[2] += m[0] * (-center_x - translate_x) + m[1] * (-center_y - translate_y);
  m[5] += m[3] * (-center_x - translate_x) + m[4] * (-center_y - translate_y);
  m[2] += center_x;
  m[5] += center_y;
  return m;
}

void affine_nearest(ImageView image, const std::array<double, 6>& inverse,
                    const std::array<double, 3>& fill, AugmentScratch& scratch) {
  const int w = image.width, h = image.height;
  const std::size_t row = static_cast<std::size_t>(w) * 3;
  scratch.bytes.assign(image.pixels, image.pixels + row * h);
  const std::uint8_t* src = scratch.bytes.data();
  std::uint8_t fill_bytes[3];
  for (int c = 0; c < 3; ++c) {
    fill_bytes[c] = static_cast<std::uint8_t>(std::nearbyint(std::clamp(fill[c], 0.0, 255.0)));
  }
  // As _gen_affine_grid and grid_sample(mode="nearest", align_corners=False) compute it, in
  // float32: the matrix over half the size gives normalised coordinates, which grid_sample
  // maps back to pixels and rounds half to even.
  const float half_w = 0.5f * static_cast<float>(w), half_h = 0.5f * static_cast<float>(h);
  const float t[6] = {
      static_cast<float>(inverse[0]) / half_w, static_cast<float>(inverse[1]) / half_w,
      static_cast<float>(inverse[2]) / half_w, static_cast<float>(inverse[3]) / half_h,
      static_cast<float>(inverse[4]) / half_h, static_cast<float>(inverse[5]) / half_h};
  const auto fw = static_cast<float>(w), fh = static_cast<float>(h);
  for (int y = 0; y < h; ++y) {
    const float yc = static_cast<float>(y) + 0.5f - half_h;
    std::uint8_t* out = image.pixels + y * row;
    for (int x = 0; x < w; ++x, out += 3) {
      const float xc = static_cast<float>(x) + 0.5f - half_w;
      const float gx = xc * t[0] + yc * t[1] + t[2];
      const float gy = xc * t[3] + yc * t[4] + t[5];
      const float ix = std::nearbyint(((gx + 1.0f) * fw - 1.0f) / 2.0f);
      const float iy = std::nearbyint(((gy + 1.0f) * fh - 1.0f) / 2.0f);
      if (ix >= 0 && ix < fw && iy >= 0 && iy < fh) {
        std::memcpy(out,
                    src + static_cast<std::size_t>(iy) * row + 3 * static_cast<std::size_t>(ix), 3);
      } else {
        std::memcpy(out, fill_bytes, 3);
      }
    }
  }
}

void apply_augment_op(ImageView image, AugmentOp op, double magnitude,
                      const std::array<double, 3>& fill, AugmentScratch& scratch) {
  const double half_w = 0.5 * image.width, half_h = 0.5 * image.height;
  constexpr double kDegrees = 180.0 / std::numbers::pi;
  switch (op) {
    case AugmentOp::kIdentity:
      return;
    case AugmentOp::kShearX:  // centre [0, 0]: the top-left corner
      return affine_nearest(
          image,
          inverse_affine_matrix(-half_w, -half_h, 0, 0, 0, 1, std::atan(magnitude) * kDegrees, 0),
          fill, scratch);
    case AugmentOp::kShearY:
      return affine_nearest(
          image,
          inverse_affine_matrix(-half_w, -half_h, 0, 0, 0, 1, 0, std::atan(magnitude) * kDegrees),
          fill, scratch);
    case AugmentOp::kTranslateX:  // translate=[int(magnitude), 0]
      return affine_nearest(
          image, inverse_affine_matrix(0, 0, 0, std::trunc(magnitude), 0, 1, 0, 0), fill, scratch);
    case AugmentOp::kTranslateY:
      return affine_nearest(
          image, inverse_affine_matrix(0, 0, 0, 0, std::trunc(magnitude), 1, 0, 0), fill, scratch);
    case AugmentOp::kRotate:  // F.rotate passes -angle to the matrix
      return affine_nearest(image, inverse_affine_matrix(0, 0, -magnitude, 0, 0, 1, 0, 0), fill,
                            scratch);
    case AugmentOp::kBrightness:
      return adjust_brightness(image, 1.0 + magnitude);
    case AugmentOp::kColor:
      return adjust_saturation(image, 1.0 + magnitude);
    case AugmentOp::kContrast:
      return adjust_contrast(image, 1.0 + magnitude);
    case AugmentOp::kSharpness:
      return adjust_sharpness(image, 1.0 + magnitude, scratch);
    case AugmentOp::kPosterize:
      return posterize(image, static_cast<int>(magnitude));
    case AugmentOp::kSolarize:
      return solarize(image, magnitude);
    case AugmentOp::kAutoContrast:
      return autocontrast(image);
    case AugmentOp::kEqualize:
      return equalize(image);
    case AugmentOp::kInvert:
      return invert(image);
  }
}

}  // namespace feedrate::decode
