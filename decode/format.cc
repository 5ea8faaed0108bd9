#include "decode/format.h"

#include <cstring>
#include <string>

namespace feedrate::decode {
namespace {

bool starts_with(std::span<const std::uint8_t> bytes, const char* magic, std::size_t length,
                 std::size_t at = 0) {
  return bytes.size() >= at + length && std::memcmp(bytes.data() + at, magic, length) == 0;
}

}  // namespace

ImageFormat sniff_format(std::span<const std::uint8_t> bytes) {
  // The SOI marker alone, as the JPEG decoder checks it: a JPEG damaged right after it is a
  // corrupt JPEG, not an unknown file.
  if (bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8) return ImageFormat::kJpeg;
  if (starts_with(bytes, "\x89PNG\r\n\x1a\n", 8)) return ImageFormat::kPng;
  if (starts_with(bytes, "RIFF", 4) && starts_with(bytes, "WEBP", 4, 8)) return ImageFormat::kWebp;
  if (starts_with(bytes, "BM", 2)) return ImageFormat::kBmp;
  if (starts_with(bytes, "II*\0", 4) || starts_with(bytes, "MM\0*", 4) ||
      starts_with(bytes, "II+\0", 4) || starts_with(bytes, "MM\0+", 4)) {  // classic, BigTIFF
    return ImageFormat::kTiff;
  }
  if (starts_with(bytes, "GIF87a", 6) || starts_with(bytes, "GIF89a", 6)) return ImageFormat::kGif;
  if (bytes.size() >= 3 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '7' &&
      (bytes[2] == ' ' || bytes[2] == '\n' || bytes[2] == '\r' || bytes[2] == '\t' ||
       bytes[2] == '#')) {
    return ImageFormat::kPnm;
  }
  return ImageFormat::kUnknown;
}

ImageFormat damaged_signature(std::span<const std::uint8_t> bytes) {
  static constexpr std::uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < 8 || sniff_format(bytes) != ImageFormat::kUnknown)
    return ImageFormat::kUnknown;
  // "PNG" in place, or 6 of the 8 bytes: no other format starts that way.
  int same = 0;
  for (int i = 0; i < 8; ++i) same += bytes[i] == kPng[i];
  if (starts_with(bytes, "PNG", 3, 1) || same >= 6) return ImageFormat::kPng;
  return ImageFormat::kUnknown;
}

const char* image_format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::kUnknown:
      return "unknown";
    case ImageFormat::kJpeg:
      return "JPEG";
    case ImageFormat::kPng:
      return "PNG";
    case ImageFormat::kWebp:
      return "WebP";
    case ImageFormat::kBmp:
      return "BMP";
    case ImageFormat::kPnm:
      return "PNM";
    case ImageFormat::kTiff:
      return "TIFF";
    case ImageFormat::kGif:
      return "GIF";
  }
  return "unknown";
}

DecodeStatus check_declared_size(ImageFormat format, std::int64_t width, std::int64_t height,
                                 const DecodeLimits& limits) {
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  if (width <= 0 || height <= 0) {
    return {DecodeErrc::kCorrupt,
            std::string(image_format_name(format)) + ": declared size " + size + " is empty"};
  }
  // Both sides fit in 32 bits in every format read here, so the product cannot overflow.
  if (static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) > limits.max_pixels) {
    return {DecodeErrc::kTooLarge, std::string(image_format_name(format)) + ": declared size " +
                                       size + " exceeds the limit of " +
                                       std::to_string(limits.max_pixels) + " pixels"};
  }
  return {};
}

}  // namespace feedrate::decode
