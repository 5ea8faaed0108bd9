// Encoders for the non-JPEG formats a loader must read (PNG through libspng, WebP through
// libwebp, BMP, PNM and TIFF written here), for mixed-format datasets, decode tests and fuzz
// seeds. Each takes packed 8-bit pixels and returns the file's bytes.
// Thread-safety: reentrant; may be called concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace feedrate::datagen {

using Bytes = std::vector<unsigned char>;

enum class PngKind {
  kRgb,        // 8-bit RGB
  kRgba,       // 8-bit RGB + alpha (alpha varies across the image, 0 included)
  kGray,       // 8-bit gray (the BT.601 luma of the pixels)
  kGrayAlpha,  // 8-bit gray + alpha
  kPalette,    // 8-bit palette of a 6x6x6 colour cube
  kRgb16,      // 16-bit RGB (each sample v * 257 plus a low byte that PIL drops)
  kGray16,     // 16-bit gray
};

struct PngSpec {
  PngKind kind = PngKind::kRgb;
  bool interlaced = false;  // Adam7
};

// `rgb` is width x height packed RGB; the other channels are derived from it.
// Throws std::runtime_error with libspng's / libwebp's message when encoding fails.
Bytes encode_png(const std::vector<unsigned char>& rgb, int width, int height, PngSpec spec);
// lossless: VP8L; else VP8 at `quality`. alpha: adds the same alpha as PngKind::kRgba.
Bytes encode_webp(const std::vector<unsigned char>& rgb, int width, int height, bool lossless,
                  bool alpha, int quality = 80);
// 24-bit (BGR) or 32-bit (BGRX, the fourth byte the alpha above) uncompressed, bottom-up unless
// top_down.
Bytes encode_bmp(const std::vector<unsigned char>& rgb, int width, int height, int bits,
                 bool top_down);
// Binary PPM (P6) or, when gray, PGM (P5) of the luma; maxval 255.
Bytes encode_pnm(const std::vector<unsigned char>& rgb, int width, int height, bool gray);
// Baseline uncompressed RGB TIFF, one strip, little-endian.
Bytes encode_tiff(const std::vector<unsigned char>& rgb, int width, int height);

// The varying alpha of the RGBA encodings at (x, y): 0 in the top-left corner, 255 in the
// bottom-right one.
unsigned char alpha_at(int x, int y, int width, int height);

// A mixed-format dataset: the kind of image `index`, cycling through every variant above plus
// JPEGs (RGB and CMYK), upper-case extensions and a PNG named .JPEG.
inline constexpr int kMixedKinds = 17;  // mixed_kind(i) repeats with this period
struct MixedKind {
  std::string extension;  // with its dot, in the case the file gets: ".png", ".PNG", ".JPEG"
  std::string what;       // for messages: "16-bit RGB PNG"
};
MixedKind mixed_kind(int index);
// The bytes of image `index` of a mixed dataset, from photograph-like pixels of that seed.
Bytes encode_mixed(std::uint64_t seed, int index, int width, int height, int quality);

}  // namespace feedrate::datagen
