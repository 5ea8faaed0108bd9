// Which image format a byte string holds, from its first bytes (never from a file name), and the
// whole-image decoders of the formats without a crop-aware path.
//
// Each decode_*_full writes the whole image as packed 8-bit RGB into `out`, with the pixels of
// PIL.Image.open(f).convert("RGB"): alpha dropped (not premultiplied), palettes expanded, gray
// replicated. The declared size is checked against DecodeLimits::max_pixels before any pixel
// memory is allocated. `out` is scratch reused between calls: it only grows, up to the pixel
// limit. Thread-safety: reentrant; one RgbImage per thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "decode/image_decoder.h"
#include "decode/status.h"

namespace feedrate::decode {

enum class ImageFormat { kUnknown, kJpeg, kPng, kWebp, kBmp, kPnm, kTiff, kGif };

// The format whose signature `bytes` starts with; kUnknown when none matches.
ImageFormat sniff_format(std::span<const std::uint8_t> bytes);
const char* image_format_name(ImageFormat format);

// For bytes that match no signature: the format whose signature they nearly hold ("PNG" in
// place, or 6 of its 8 bytes: a text-mode transfer rewrote "\r\n", a bit flipped), else
// kUnknown. Used to say "damaged PNG signature" rather than "not an image".
ImageFormat damaged_signature(std::span<const std::uint8_t> bytes);

struct RgbImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels;  // width * height * 3, packed RGB
  std::vector<std::uint8_t> raw;     // a codec's own output before conversion, when it needs one
};

// kOk when width x height is a non-empty image within limits.max_pixels, else kCorrupt (zero or
// negative sides) or kTooLarge, with a message naming the format and the declared size.
DecodeStatus check_declared_size(ImageFormat format, std::int64_t width, std::int64_t height,
                                 const DecodeLimits& limits);

DecodeStatus decode_png_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                             RgbImage& out);
// A semantic label map: a PNG of one channel read as indices, one byte a pixel, as PIL opens
// mode "L" and "P" images (a palette PNG is not expanded to RGB: its indices are the classes).
// 8-bit grayscale and palettes; any other kind is kUnsupported, naming it.
// out.width and out.height are set; out.pixels holds width * height indices.
DecodeStatus decode_png_label_map(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                                  RgbImage& out);
DecodeStatus decode_webp_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                              RgbImage& out);
DecodeStatus decode_tiff_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                              RgbImage& out);
// BMP as Pillow 9.4 reads it: 12- (OS/2 1.x) to 124-byte headers, 1/4/8-bit palettes, RLE8,
// RLE4, 16/24/32 bits, the bit-field masks Pillow knows; bottom-up or top-down.
DecodeStatus decode_bmp_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                             RgbImage& out);
// PBM, PGM and PPM, plain (P1-P3) and binary (P4-P6), maxval 1-65535, as Pillow 9.4 reads them.
DecodeStatus decode_pnm_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                             RgbImage& out);

}  // namespace feedrate::decode
