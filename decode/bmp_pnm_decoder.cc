// BMP and binary PNM, parsed here: Debian has no maintained decoding library for either (the
// BMP readers come inside large toolkits such as ImageMagick or SDL), and the subsets ImageNet-
// style datasets hold are small. Every field is read with bounds checks, every size computed
// in 64 bits, and the declared size checked against the pixel limit before allocating.
#include <cstring>
#include <string>

#include "decode/format.h"

namespace feedrate::decode {
namespace {

std::uint32_t u32le(const std::uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint16_t u16le(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

DecodeStatus bmp_error(DecodeErrc code, const std::string& what) {
  return {code, "BMP: " + what};
}

constexpr std::size_t kFileHeader = 14;
constexpr std::uint32_t kBiRgb = 0, kBiBitfields = 3;

}  // namespace

DecodeStatus decode_bmp_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                             RgbImage& out) {
  if (bytes.size() < kFileHeader + 4) return bmp_error(DecodeErrc::kTruncated, "header cut short");
  const std::uint8_t* p = bytes.data();
  const std::uint32_t data_offset = u32le(p + 10);
  const std::uint32_t info_size = u32le(p + 14);
  if (info_size < 40) {
    return bmp_error(DecodeErrc::kUnsupported,
                     "info header of " + std::to_string(info_size) + " bytes (OS/2 BMP)");
  }
  if (bytes.size() < kFileHeader + 40) return bmp_error(DecodeErrc::kTruncated, "header cut short");
  const auto width = static_cast<std::int32_t>(u32le(p + 18));
  const auto signed_height = static_cast<std::int32_t>(u32le(p + 22));
  const std::uint16_t bits = u16le(p + 28);
  const std::uint32_t compression = u32le(p + 30);
  const std::uint32_t colors_used = u32le(p + 46);
  const bool top_down = signed_height < 0;
  const std::int64_t height = top_down ? -static_cast<std::int64_t>(signed_height) : signed_height;
  if (DecodeStatus status = check_declared_size(ImageFormat::kBmp, width, height, limits);
      !status.ok()) {
    return status;
  }
  if (bits != 8 && bits != 24 && bits != 32) {
    return bmp_error(DecodeErrc::kUnsupported, std::to_string(bits) + " bits per pixel");
  }
  if (compression == kBiBitfields && bits == 32) {
    // The masks follow a 40-byte header, or sit inside a larger one at the same offset.
    const std::size_t masks = kFileHeader + 40;
    if (bytes.size() < masks + 12) return bmp_error(DecodeErrc::kTruncated, "masks cut short");
    if (u32le(p + masks) != 0x00FF0000 || u32le(p + masks + 4) != 0x0000FF00 ||
        u32le(p + masks + 8) != 0x000000FF) {
      return bmp_error(DecodeErrc::kUnsupported, "32-bit bit fields other than BGR");
    }
  } else if (compression != kBiRgb) {
    return bmp_error(DecodeErrc::kUnsupported,
                     "compression " + std::to_string(compression) + " (RLE or other)");
  }
  // An 8-bit image's palette: BGRX entries after the info header; indices past it are black.
  std::uint8_t palette[256][3] = {};
  if (bits == 8) {
    const std::uint64_t count = colors_used == 0 ? 256 : colors_used;
    if (count > 256) return bmp_error(DecodeErrc::kCorrupt, "palette of more than 256 colours");
    const std::uint64_t start = kFileHeader + static_cast<std::uint64_t>(info_size);
    if (start + count * 4 > bytes.size()) {
      return bmp_error(DecodeErrc::kTruncated, "palette cut short");
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      palette[i][0] = p[start + 4 * i + 2];
      palette[i][1] = p[start + 4 * i + 1];
      palette[i][2] = p[start + 4 * i];
    }
  }
  const std::uint64_t stride = (static_cast<std::uint64_t>(width) * bits + 31) / 32 * 4;
  if (data_offset > bytes.size() || stride * height > bytes.size() - data_offset) {
    return bmp_error(DecodeErrc::kTruncated, "pixel data ends before the image does (" +
                                                 std::to_string(bytes.size()) + " bytes)");
  }
  out.width = width;
  out.height = static_cast<int>(height);
  out.pixels.resize(static_cast<std::size_t>(width) * height * 3);
  const int step = bits / 8;
  for (std::int64_t y = 0; y < height; ++y) {
    const std::uint8_t* row = p + data_offset + stride * (top_down ? y : height - 1 - y);
    std::uint8_t* dst = &out.pixels[static_cast<std::size_t>(y) * width * 3];
    if (bits == 8) {
      for (std::int32_t x = 0; x < width; ++x) std::memcpy(dst + 3 * x, palette[row[x]], 3);
      continue;
    }
    for (std::int32_t x = 0; x < width; ++x) {
      const std::uint8_t* px = row + static_cast<std::size_t>(x) * step;
      dst[3 * x] = px[2];
      dst[3 * x + 1] = px[1];
      dst[3 * x + 2] = px[0];
    }
  }
  return {};
}

namespace {

// Skips whitespace and '#' comments, then reads a decimal number of at most 9 digits.
bool pnm_number(std::span<const std::uint8_t> bytes, std::size_t& at, std::int64_t& value) {
  while (at < bytes.size()) {
    const std::uint8_t c = bytes[at];
    if (c == '#') {
      while (at < bytes.size() && bytes[at] != '\n' && bytes[at] != '\r') ++at;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      ++at;
    } else {
      break;
    }
  }
  value = 0;
  int digits = 0;
  while (at < bytes.size() && bytes[at] >= '0' && bytes[at] <= '9') {
    if (++digits > 9) return false;
    value = value * 10 + (bytes[at++] - '0');
  }
  return digits > 0;
}

}  // namespace

DecodeStatus decode_pnm_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                             RgbImage& out) {
  const char kind = bytes.size() >= 2 ? static_cast<char>(bytes[1]) : '?';
  if (kind != '5' && kind != '6') {
    return {DecodeErrc::kUnsupported,
            std::string("PNM: P") + kind + " (only binary P5 gray and P6 colour are supported)"};
  }
  std::size_t at = 2;
  std::int64_t width = 0, height = 0, maxval = 0;
  if (!pnm_number(bytes, at, width) || !pnm_number(bytes, at, height) ||
      !pnm_number(bytes, at, maxval) || at >= bytes.size()) {
    return {at >= bytes.size() ? DecodeErrc::kTruncated : DecodeErrc::kCorrupt,
            "PNM: malformed header"};
  }
  ++at;  // the single whitespace byte before the samples
  if (DecodeStatus status = check_declared_size(ImageFormat::kPnm, width, height, limits);
      !status.ok()) {
    return status;
  }
  if (maxval != 255) {
    return {DecodeErrc::kUnsupported,
            "PNM: maxval " + std::to_string(maxval) + " (only 255 is supported)"};
  }
  const int channels = kind == '6' ? 3 : 1;
  const std::uint64_t pixels = static_cast<std::uint64_t>(width) * height;
  if (pixels * channels > bytes.size() - at) {
    return {DecodeErrc::kTruncated,
            "PNM: samples end before the image does (" + std::to_string(bytes.size()) + " bytes)"};
  }
  out.width = static_cast<int>(width);
  out.height = static_cast<int>(height);
  out.pixels.resize(pixels * 3);
  const std::uint8_t* samples = bytes.data() + at;
  if (channels == 3) {
    std::memcpy(out.pixels.data(), samples, pixels * 3);
  } else {
    for (std::uint64_t i = 0; i < pixels; ++i) {
      out.pixels[3 * i] = out.pixels[3 * i + 1] = out.pixels[3 * i + 2] = samples[i];
    }
  }
  return {};
}

}  // namespace feedrate::decode
