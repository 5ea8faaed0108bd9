// WebP (lossy and lossless, with or without alpha) through libwebp's advanced decoding API, so
// that its status says why a file failed. Animated files are refused.
#include <webp/decode.h>

#include <string>

#include "decode/format.h"

namespace feedrate::decode {
namespace {

DecodeStatus webp_error(VP8StatusCode code) {
  switch (code) {
    case VP8_STATUS_NOT_ENOUGH_DATA:
      return {DecodeErrc::kTruncated, "WebP: data ends before the image does"};
    case VP8_STATUS_UNSUPPORTED_FEATURE:
      return {DecodeErrc::kUnsupported, "WebP: unsupported feature"};
    case VP8_STATUS_OUT_OF_MEMORY:
      return {DecodeErrc::kCorrupt, "WebP: out of memory"};
    default:
      return {DecodeErrc::kCorrupt,
              "WebP: corrupt bitstream (libwebp status " + std::to_string(code) + ")"};
  }
}

}  // namespace

DecodeStatus decode_webp_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                              RgbImage& out) {
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return {DecodeErrc::kCorrupt, "WebP: libwebp mismatch"};
  if (VP8StatusCode code = WebPGetFeatures(bytes.data(), bytes.size(), &config.input);
      code != VP8_STATUS_OK) {
    return webp_error(code);
  }
  if (config.input.has_animation) {
    return {DecodeErrc::kUnsupported, "WebP: animated images are not supported"};
  }
  if (DecodeStatus status =
          check_declared_size(ImageFormat::kWebp, config.input.width, config.input.height, limits);
      !status.ok()) {
    return status;
  }
  out.width = config.input.width;
  out.height = config.input.height;
  const std::size_t stride = static_cast<std::size_t>(out.width) * 3;
  out.pixels.resize(stride * out.height);
  // MODE_RGB drops alpha without premultiplying, as PIL's RGBA -> RGB does.
  config.output.colorspace = MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = out.pixels.data();
  config.output.u.RGBA.stride = static_cast<int>(stride);
  config.output.u.RGBA.size = out.pixels.size();
  const VP8StatusCode code = WebPDecode(bytes.data(), bytes.size(), &config);
  WebPFreeDecBuffer(&config.output);
  if (code != VP8_STATUS_OK) return webp_error(code);
  return {};
}

}  // namespace feedrate::decode
