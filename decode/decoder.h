// The decode stage's one entry point: decodes an image of any supported format, chosen by its
// first bytes (sniff_format), and applies a transform straight into a caller's buffer.
//
// JPEG goes through ImageDecoder's crop-aware path (ROI and DCT-scaled decode). PNG, WebP, TIFF,
// BMP and PNM have no region decode: the whole image is decoded into per-thread scratch (bounded
// by DecodeLimits::max_pixels, checked before it grows), then the same ResizePlan and Resampler
// as the JPEG path crop, resize and flip it. Pixels follow PIL's Image.open(f).convert("RGB").
// Then the spec's pixel steps (decode/augment_policy.h) run on the output, whatever the format.
//
// Thread-safety: a Decoder holds codec state and scratch buffers; use one per thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "decode/augment.h"
#include "decode/format.h"
#include "decode/image_decoder.h"
#include "decode/resize.h"
#include "decode/status.h"
#include "decode/transform.h"

namespace feedrate::decode {

class Decoder {
 public:
  explicit Decoder(DecodeLimits limits = {});

  // Decodes `bytes` under `spec` with augmentation drawn from Rng(sample_seed) and writes
  // spec.size x spec.size packed RGB (HWC uint8) to `out`, which must hold that many bytes:
  // stages 1 and 2 of the spec (decode/transform.h); stage 3 is the caller's.
  DecodeStatus decode(std::span<const std::uint8_t> bytes, const TransformSpec& spec,
                      std::uint64_t sample_seed, std::span<std::uint8_t> out);

  // Decodes the whole image at full size into packed RGB (references, tests, tools).
  DecodeStatus decode_full(std::span<const std::uint8_t> bytes, std::vector<std::uint8_t>& rgb);

  // The format, width and height of the last call's image.
  ImageFormat format() const { return format_; }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  // Decodes a non-JPEG image whole into whole_.
  DecodeStatus decode_whole(std::span<const std::uint8_t> bytes);

  DecodeLimits limits_;
  ImageDecoder jpeg_;
  Resampler resampler_;
  AugmentScratch augment_;
  RgbImage whole_;
  ImageFormat format_ = ImageFormat::kUnknown;
  int width_ = 0, height_ = 0;
};

}  // namespace feedrate::decode
