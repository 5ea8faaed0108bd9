#include "decode/decoder.h"

#include <cstdio>
#include <string>

#include "decode/augment_policy.h"

namespace feedrate::decode {

Decoder::Decoder(DecodeLimits limits) : limits_(limits), jpeg_(limits) {}

DecodeStatus Decoder::decode_whole(std::span<const std::uint8_t> bytes) {
  switch (format_) {
    case ImageFormat::kPng:
      return decode_png_full(bytes, limits_, whole_);
    case ImageFormat::kWebp:
      return decode_webp_full(bytes, limits_, whole_);
    case ImageFormat::kTiff:
      return decode_tiff_full(bytes, limits_, whole_);
    case ImageFormat::kBmp:
      return decode_bmp_full(bytes, limits_, whole_);
    case ImageFormat::kPnm:
      return decode_pnm_full(bytes, limits_, whole_);
    case ImageFormat::kGif:
      return {DecodeErrc::kUnsupported, "GIF is not supported"};
    case ImageFormat::kJpeg:
    case ImageFormat::kUnknown:
      break;
  }
  if (bytes.empty()) return {DecodeErrc::kEmpty, "nothing to decode (0 bytes)"};
  char message[160];
  if (damaged_signature(bytes) == ImageFormat::kPng) {
    std::snprintf(message, sizeof(message),
                  "PNG: damaged signature (%02x %02x %02x %02x %02x %02x %02x %02x, expected 89 50 "
                  "4e 47 0d 0a 1a 0a)",
                  bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7]);
    return {DecodeErrc::kCorrupt, message};
  }
  std::snprintf(message, sizeof(message),
                "the first bytes (%02x %02x %02x %02x) match no supported format (JPEG, PNG, "
                "WebP, TIFF, BMP, PBM/PGM/PPM)",
                bytes[0], bytes.size() > 1 ? bytes[1] : 0, bytes.size() > 2 ? bytes[2] : 0,
                bytes.size() > 3 ? bytes[3] : 0);
  return {DecodeErrc::kNotImage, message};
}

DecodeStatus Decoder::decode(std::span<const std::uint8_t> bytes, const TransformSpec& spec,
                             std::uint64_t sample_seed, std::span<std::uint8_t> out) {
  format_ = sniff_format(bytes);
  width_ = height_ = 0;
  if (format_ == ImageFormat::kJpeg) {
    DecodeStatus status = jpeg_.decode(bytes, spec, sample_seed, out);
    width_ = jpeg_.info().width;
    height_ = jpeg_.info().height;
    if (status.ok())
      apply_pixel_steps(spec, sample_seed, {out.data(), spec.size, spec.size}, augment_);
    return status;
  }
  const std::size_t needed = static_cast<std::size_t>(spec.size) * spec.size * 3;
  if (out.size() < needed) return {DecodeErrc::kCorrupt, "output buffer too small"};
  if (DecodeStatus status = decode_whole(bytes); !status.ok()) return status;
  width_ = whole_.width;
  height_ = whole_.height;
  Rng rng(sample_seed);
  const ResizePlan plan = plan_transform(spec, width_, height_, rng);
  resampler_.prepare(plan);
  resampler_.run(whole_.pixels.data(), static_cast<std::size_t>(width_) * 3, 0, 0, out.data());
  apply_pixel_steps(spec, sample_seed, {out.data(), spec.size, spec.size}, augment_);
  return {};
}

DecodeStatus Decoder::decode_full(std::span<const std::uint8_t> bytes,
                                  std::vector<std::uint8_t>& rgb) {
  format_ = sniff_format(bytes);
  width_ = height_ = 0;
  if (format_ == ImageFormat::kJpeg) {
    DecodeStatus status = jpeg_.decode_full(bytes, rgb);
    width_ = jpeg_.info().width;
    height_ = jpeg_.info().height;
    return status;
  }
  if (DecodeStatus status = decode_whole(bytes); !status.ok()) return status;
  width_ = whole_.width;
  height_ = whole_.height;
  rgb.swap(whole_.pixels);  // the caller's old buffer becomes the scratch, as in the JPEG path
  return {};
}

}  // namespace feedrate::decode
