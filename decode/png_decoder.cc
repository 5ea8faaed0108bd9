// PNG through libspng. libspng checks every chunk's CRC, the zlib stream and the chunk order;
// ancillary chunks are kept within kChunkLimitBytes so a file of huge text chunks cannot make
// it allocate more than that.
#include <spng.h>

#include <algorithm>
#include <memory>
#include <string>

#include "decode/format.h"

namespace feedrate::decode {
namespace {

constexpr std::size_t kChunkLimitBytes = std::size_t{64} << 20;

struct CtxFree {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};

DecodeStatus png_error(int rc) {
  const std::string message = std::string("PNG: ") + spng_strerror(rc);
  switch (rc) {
    case SPNG_IO_EOF:
    case SPNG_EOF:
    case SPNG_EIDAT_TOO_SHORT:
      return {DecodeErrc::kTruncated, message};
    default:
      return {DecodeErrc::kCorrupt, message};
  }
}

// PIL opens 16-bit grayscale as mode "I" (32-bit integers), and convert("RGB") clamps those to
// [0, 255] instead of scaling: so does this.
void gray16_to_rgb(const std::uint16_t* gray, std::size_t pixels, std::uint8_t* rgb) {
  for (std::size_t i = 0; i < pixels; ++i) {
    const auto v = static_cast<std::uint8_t>(std::min<std::uint16_t>(gray[i], 255));
    rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = v;
  }
}

// A libspng context over `bytes` (chunk sizes capped), and the header, whose declared size is
// checked against `limits`.
DecodeStatus open_png(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                      std::unique_ptr<spng_ctx, CtxFree>& ctx, spng_ihdr& ihdr) {
  ctx.reset(spng_ctx_new(0));
  if (!ctx) return {DecodeErrc::kCorrupt, "PNG: cannot create a libspng context"};
  spng_set_chunk_limits(ctx.get(), kChunkLimitBytes, kChunkLimitBytes);
  if (int rc = spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size()); rc != 0) {
    return png_error(rc);
  }
  if (int rc = spng_get_ihdr(ctx.get(), &ihdr); rc != 0) return png_error(rc);
  return check_declared_size(ImageFormat::kPng, ihdr.width, ihdr.height, limits);
}

}  // namespace

DecodeStatus decode_png_label_map(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                                  RgbImage& out) {
  if (sniff_format(bytes) != ImageFormat::kPng) {
    return {DecodeErrc::kUnsupported, "a label map must be a PNG"};
  }
  std::unique_ptr<spng_ctx, CtxFree> ctx;
  spng_ihdr ihdr{};
  if (DecodeStatus status = open_png(bytes, limits, ctx, ihdr); !status.ok()) return status;
  const bool one_channel =
      ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE || ihdr.color_type == SPNG_COLOR_TYPE_INDEXED;
  if (!one_channel || ihdr.bit_depth != 8) {
    return {DecodeErrc::kUnsupported,
            "a label map must be an 8-bit grayscale or palette PNG, not color type " +
                std::to_string(ihdr.color_type) + " at " + std::to_string(ihdr.bit_depth) +
                " bits"};
  }
  out.width = static_cast<int>(ihdr.width);
  out.height = static_cast<int>(ihdr.height);
  out.pixels.resize(static_cast<std::size_t>(ihdr.width) * ihdr.height);
  // The PNG's own format at 8 bits: the gray values, or the palette's indices.
  if (int rc = spng_decode_image(ctx.get(), out.pixels.data(), out.pixels.size(), SPNG_FMT_PNG, 0);
      rc != 0) {
    return png_error(rc);
  }
  return {};
}

DecodeStatus decode_png_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                             RgbImage& out) {
  std::unique_ptr<spng_ctx, CtxFree> ctx;
  spng_ihdr ihdr{};
  if (DecodeStatus status = open_png(bytes, limits, ctx, ihdr); !status.ok()) return status;
  out.width = static_cast<int>(ihdr.width);
  out.height = static_cast<int>(ihdr.height);
  const std::size_t pixels = static_cast<std::size_t>(ihdr.width) * ihdr.height;
  out.pixels.resize(pixels * 3);
  if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE && ihdr.bit_depth == 16) {
    out.raw.resize(pixels * 2);
    if (int rc = spng_decode_image(ctx.get(), out.raw.data(), out.raw.size(), SPNG_FMT_PNG, 0);
        rc != 0) {
      return png_error(rc);
    }
    gray16_to_rgb(reinterpret_cast<const std::uint16_t*>(out.raw.data()), pixels,
                  out.pixels.data());
    return {};
  }
  // RGB8 drops alpha and tRNS, expands palettes and gray, and keeps the high byte of 16-bit
  // samples, as PIL's convert("RGB") does; no gamma correction (PIL applies none either).
  if (int rc = spng_decode_image(ctx.get(), out.pixels.data(), out.pixels.size(), SPNG_FMT_RGB8, 0);
      rc != 0) {
    return png_error(rc);
  }
  return {};
}

}  // namespace feedrate::decode
