// Shared by the decode fuzz targets (fuzz_jpeg_decode, fuzz_image_decode and the per-format
// png_decode, webp_decode, tiff_decode, bmp_pnm_decode): the limits, the train and eval
// transforms every input runs under, and the checks that a failure carries a message and a
// success holds the pixels it declares.
// The pixel limit is lowered to 4 MP (the default is 100 MP) so that a valid but huge image
// costs milliseconds, not seconds, per input; the scan cap is the default.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "decode/format.h"
#include "decode/image_decoder.h"

namespace feedrate::fuzz {

inline const decode::DecodeLimits kDecodeLimits{4'000'000, decode::DecodeLimits{}.max_scans};

inline void check(const decode::DecodeStatus& status, const char* what) {
  if (!status.ok() && status.message.empty()) {
    std::fprintf(stderr, "%s: %s without a message\n", what, decode::errc_name(status.code));
    std::abort();
  }
}

// Decodes `bytes` under a train (96 px) and an eval (64 px) transform, checking both statuses;
// the last byte picks the seed, so that the fuzzer can steer the crop. Returns the train status.
template <class Decoder>
decode::DecodeStatus decode_transformed(Decoder& decoder, std::span<const std::uint8_t> bytes) {
  static std::vector<std::uint8_t> out(96 * 96 * 3);
  const std::uint64_t seed = bytes.empty() ? 0 : bytes.back();
  TransformSpec train;
  train.size = 96;
  const decode::DecodeStatus trained = decoder.decode(bytes, train, seed, out);
  check(trained, "train");
  TransformSpec eval;
  eval.kind = TransformKind::kEval;
  eval.size = 64;
  eval.resize = 72;
  check(decoder.decode(bytes, eval, seed, out), "eval");
  return trained;
}

// Aborts unless a successful full decode holds width x height RGB pixels.
inline void check_full(const decode::DecodeStatus& full, const std::vector<std::uint8_t>& rgb,
                       int width, int height) {
  check(full, "full");
  if (full.ok() && rgb.size() != static_cast<std::size_t>(width) * height * 3) {
    std::fprintf(stderr, "full decode of %dx%d gave %zu bytes\n", width, height, rgb.size());
    std::abort();
  }
}

// Runs one whole-image decoder (decode_png_full and the others of decode/format.h) on `bytes`
// and aborts unless it fails with a message or gives a non-empty image within the pixel limit,
// holding width x height RGB pixels.
template <class DecodeFull>
void check_whole_image(DecodeFull decode_full, std::span<const std::uint8_t> bytes,
                       const char* what) {
  static decode::RgbImage image;
  const decode::DecodeStatus status = decode_full(bytes, kDecodeLimits, image);
  check(status, what);
  if (!status.ok()) return;
  const std::uint64_t pixels = static_cast<std::uint64_t>(image.width) * image.height;
  if (image.width <= 0 || image.height <= 0 || pixels > kDecodeLimits.max_pixels ||
      image.pixels.size() != pixels * 3) {
    std::fprintf(stderr, "%s: %dx%d image with %zu bytes\n", what, image.width, image.height,
                 image.pixels.size());
    std::abort();
  }
}

}  // namespace feedrate::fuzz
