#include "decode/tiff_pixels.h"

#include <algorithm>
#include <cstring>

namespace feedrate::decode::tiff {
namespace {

constexpr std::uint16_t kMinIsWhite = 0, kMinIsBlack = 1, kRgb = 2, kPalette = 3, kSeparated = 5;

// Sample `index` of a decoded row, as an integer (floats are read by float_sample).
std::int64_t int_sample(const SampleLayout& layout, const std::uint8_t* row, std::size_t index) {
  switch (layout.bits) {
    case 1:
    case 2:
    case 4: {
      const std::size_t bit = index * layout.bits;
      const int shift = 8 - layout.bits - static_cast<int>(bit % 8);
      return (row[bit / 8] >> shift) & ((1 << layout.bits) - 1);
    }
    case 8:
      return row[index];
    case 12: {  // two samples in three bytes, most significant bits first
      const std::size_t bit = index * 12;
      const std::uint8_t* p = row + bit / 8;
      return bit % 8 == 0 ? (p[0] << 4) | (p[1] >> 4) : ((p[0] & 0x0F) << 8) | p[1];
    }
    case 16: {
      std::uint16_t v;
      std::memcpy(&v, row + 2 * index, 2);
      if (layout.format == SampleFormat::kInt) return static_cast<std::int16_t>(v);
      return v;
    }
    default: {  // 32
      std::uint32_t v;
      std::memcpy(&v, row + 4 * index, 4);
      if (layout.format == SampleFormat::kInt) return static_cast<std::int32_t>(v);
      return v;
    }
  }
}

std::uint8_t clip8(std::int64_t v) {
  return static_cast<std::uint8_t>(std::clamp<std::int64_t>(v, 0, 255));
}

// PIL's mode "F" to "L": truncated toward zero, then clipped; NaN becomes 0.
std::uint8_t float_to_8(const std::uint8_t* row, std::size_t index) {
  float v;
  std::memcpy(&v, row + 4 * index, 4);
  if (!(v > 0)) return 0;
  return v >= 255 ? 255 : static_cast<std::uint8_t>(v);
}

// A colour sample of 8 or 16 bits as 8 bits: PIL keeps the high byte.
std::uint8_t high_byte(const SampleLayout& layout, const std::uint8_t* row, std::size_t index) {
  const std::int64_t v = int_sample(layout, row, index);
  return static_cast<std::uint8_t>(layout.bits == 16 ? v >> 8 : v);
}

// Gray as PIL opens it: 1 to 8 bits scaled to 8 ("1", "L;2", "L;4", "L"; min-is-white inverted),
// 12 to 32 bits as integers ("I;16", "I") or floats ("F") that convert("RGB") clips to 255,
// min-is-white or not.
std::uint8_t gray(const SampleLayout& layout, const std::uint8_t* row, std::size_t index) {
  if (layout.format == SampleFormat::kFloat) return float_to_8(row, index);
  const std::int64_t v = int_sample(layout, row, index);
  if (layout.bits > 8) return clip8(v);
  const auto scaled = static_cast<std::uint8_t>(v * 255 / ((1 << layout.bits) - 1));
  return layout.photometric == kMinIsWhite ? 255 - scaled : scaled;
}

// Pillow's MULDIV255: a * b / 255, rounded.
int muldiv255(int a, int b) {
  const int t = a * b + 128;
  return ((t >> 8) + t) >> 8;
}

}  // namespace

std::string unsupported_reason(const SampleLayout& layout) {
  const int bits = layout.bits;
  const bool uint = layout.format == SampleFormat::kUint;
  switch (layout.photometric) {
    case kMinIsWhite:
    case kMinIsBlack:
      if ((bits == 1 || bits == 2 || bits == 4 || bits == 8 || bits == 12) && uint) return {};
      if (bits == 16 && layout.format != SampleFormat::kFloat) return {};
      if (bits == 32) return {};
      break;
    case kRgb:
      if ((bits == 8 || bits == 16) && uint && layout.samples >= 3) return {};
      break;
    case kPalette:
      if ((bits == 1 || bits == 2 || bits == 4 || bits == 8) && uint && layout.palette[0])
        return {};
      break;
    case kSeparated:
      if ((bits == 8 || bits == 16) && uint && layout.samples >= 4) return {};
      break;
    default:
      return "photometric " + std::to_string(layout.photometric);
  }
  static constexpr const char* kFormats[] = {"unsigned", "signed", "floating-point"};
  return "photometric " + std::to_string(layout.photometric) + " with " +
         std::to_string(layout.samples) + " " + kFormats[static_cast<int>(layout.format)] + " " +
         std::to_string(bits) + "-bit samples";
}

std::size_t row_bytes(const SampleLayout& layout, std::uint32_t width, bool separate_planes) {
  const std::uint64_t samples =
      static_cast<std::uint64_t>(width) * (separate_planes ? 1 : layout.samples);
  return static_cast<std::size_t>((samples * layout.bits + 7) / 8);
}

void convert_row(const SampleLayout& layout, std::span<const std::uint8_t* const> planes,
                 std::uint32_t width, std::uint8_t* rgb) {
  const bool separate = planes.size() > 1;
  // Sample s of pixel x: plane s at x, or the one plane at x * samples + s.
  auto at = [&](std::uint32_t x, int s) -> std::pair<const std::uint8_t*, std::size_t> {
    if (separate) return {planes[s], x};
    return {planes[0], static_cast<std::size_t>(x) * layout.samples + s};
  };
  for (std::uint32_t x = 0; x < width; ++x, rgb += 3) {
    switch (layout.photometric) {
      case kPalette: {
        const auto [row, i] = at(x, 0);
        const std::int64_t index = int_sample(layout, row, i);
        for (int c = 0; c < 3; ++c)
          rgb[c] = static_cast<std::uint8_t>(layout.palette[c][index] >> 8);
        break;
      }
      case kRgb: {
        for (int c = 0; c < 3; ++c) {
          const auto [row, i] = at(x, c);
          rgb[c] = high_byte(layout, row, i);
        }
        if (layout.associated_alpha && layout.samples >= 4) {
          // PIL's "RGBa" unpacking: divided by alpha, truncated, clipped; alpha 0 gives black.
          const auto [row, i] = at(x, 3);
          const int alpha = high_byte(layout, row, i);
          for (int c = 0; c < 3; ++c) {
            rgb[c] = alpha == 0 ? 0 : clip8(rgb[c] * 255 / alpha);
          }
        }
        break;
      }
      case kSeparated: {
        // Pillow's cmyk2rgb: each channel is (255 - k) - (colour * (255 - k)) / 255, rounded.
        int ink[4];
        for (int c = 0; c < 4; ++c) {
          const auto [row, i] = at(x, c);
          ink[c] = high_byte(layout, row, i);
        }
        const int nk = 255 - ink[3];
        for (int c = 0; c < 3; ++c) rgb[c] = clip8(nk - muldiv255(ink[c], nk));
        break;
      }
      default: {
        const auto [row, i] = at(x, 0);
        rgb[0] = rgb[1] = rgb[2] = gray(layout, row, i);
        break;
      }
    }
  }
}

bool orientation_swaps_sides(int orientation) {
  return orientation >= 5 && orientation <= 8;
}

void apply_orientation(int orientation, const std::uint8_t* stored, std::uint32_t width,
                       std::uint32_t height, std::uint8_t* out) {
  if (orientation < 2 || orientation > 8) {
    std::memcpy(out, stored, static_cast<std::size_t>(width) * height * 3);
    return;
  }
  const bool swap = orientation_swaps_sides(orientation);
  const std::uint32_t out_width = swap ? height : width, out_height = swap ? width : height;
  for (std::uint32_t y = 0; y < out_height; ++y) {
    for (std::uint32_t x = 0; x < out_width; ++x) {
      // The stored pixel shown at (x, y), as Pillow's transpose methods for each tag value.
      std::uint32_t sx = x, sy = y;
      switch (orientation) {
        case 2:  // FLIP_LEFT_RIGHT
          sx = width - 1 - x;
          break;
        case 3:  // ROTATE_180
          sx = width - 1 - x;
          sy = height - 1 - y;
          break;
        case 4:  // FLIP_TOP_BOTTOM
          sy = height - 1 - y;
          break;
        case 5:  // TRANSPOSE
          sx = y;
          sy = x;
          break;
        case 6:  // ROTATE_270
          sx = y;
          sy = height - 1 - x;
          break;
        case 7:  // TRANSVERSE
          sx = width - 1 - y;
          sy = height - 1 - x;
          break;
        default:  // 8, ROTATE_90
          sx = width - 1 - y;
          sy = x;
          break;
      }
      std::memcpy(out + (static_cast<std::size_t>(y) * out_width + x) * 3,
                  stored + (static_cast<std::size_t>(sy) * width + sx) * 3, 3);
    }
  }
}

}  // namespace feedrate::decode::tiff
