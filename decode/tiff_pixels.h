// PIL's conversions of TIFF samples to RGB, for the TIFF decoder (decode/tiff_decoder.cc): what
// Pillow 9.4's TiffImagePlugin opens each sample layout as, then what convert("RGB") makes of
// that mode, and the Orientation tag Pillow applies when it loads a TIFF. libtiff decodes the
// strips and tiles; these functions only convert decoded samples, so they never fail.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace feedrate::decode::tiff {

enum class SampleFormat { kUint, kInt, kFloat };

// The first directory's sample layout, as libtiff reports it.
struct SampleLayout {
  std::uint16_t photometric = 0;  // PHOTOMETRIC_*: 0 min-is-white, 1 min-is-black, 2 RGB,
                                  // 3 palette, 5 separated (CMYK)
  std::uint16_t bits = 8;         // bits per sample
  std::uint16_t samples = 1;      // samples per pixel, extra samples included
  SampleFormat format = SampleFormat::kUint;
  bool associated_alpha = false;  // the first extra sample is premultiplied alpha
  // The palette's 16-bit entries (1 << bits of each), for photometric 3.
  const std::uint16_t* palette[3] = {nullptr, nullptr, nullptr};
};

// Empty when `convert_row` handles `layout`; otherwise why not (then the decoder uses libtiff's
// RGBA interface, which handles YCbCr, CIE L*a*b*, LogLuv and old-style JPEG as PIL does).
std::string unsupported_reason(const SampleLayout& layout);

// The bytes of one decoded row of `width` pixels (rows start on a byte boundary): all samples of
// each pixel, or with separate planes one sample of each pixel.
std::size_t row_bytes(const SampleLayout& layout, std::uint32_t width, bool separate_planes);

// Converts one row of `width` pixels to packed RGB as PIL's Image.open(f).convert("RGB") does.
// `planes[s]` is the decoded row of plane s (just planes[0] for contiguous samples).
void convert_row(const SampleLayout& layout, std::span<const std::uint8_t* const> planes,
                 std::uint32_t width, std::uint8_t* rgb);

// The width and height after Orientation `orientation` (1-8; others are treated as 1).
bool orientation_swaps_sides(int orientation);

// Writes `stored` (width x height packed RGB, rows in file order) to `out` as Pillow shows it
// under the Orientation tag: flips for 2-4, transposes and rotations for 5-8.
void apply_orientation(int orientation, const std::uint8_t* stored, std::uint32_t width,
                       std::uint32_t height, std::uint8_t* out);

}  // namespace feedrate::decode::tiff
