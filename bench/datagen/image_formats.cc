#include "bench/datagen/image_formats.h"

#include <spng.h>
#include <webp/encode.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "bench/datagen/datagen.h"

namespace feedrate::datagen {
namespace {

unsigned char luma(const unsigned char* p) {
  return static_cast<unsigned char>((299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000);
}

void put16le(Bytes& out, unsigned v) {
  out.push_back(static_cast<unsigned char>(v));
  out.push_back(static_cast<unsigned char>(v >> 8));
}
void put32le(Bytes& out, std::uint32_t v) {
  put16le(out, v & 0xFFFF);
  put16le(out, v >> 16);
}

struct SpngFree {
  void operator()(spng_ctx* ctx) const { spng_ctx_free(ctx); }
};

void check_spng(int rc, const char* what) {
  if (rc != 0)
    throw std::runtime_error(std::string("encode_png: ") + what + ": " + spng_strerror(rc));
}

}  // namespace

unsigned char alpha_at(int x, int y, int width, int height) {
  const long span = static_cast<long>(width) + height - 2;
  return static_cast<unsigned char>(span <= 0 ? 255 : 255L * (x + y) / span);
}

Bytes encode_png(const std::vector<unsigned char>& rgb, int width, int height, PngSpec spec) {
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  if (width <= 0 || height <= 0 || rgb.size() != pixels * 3) {
    throw std::invalid_argument("encode_png: size mismatch");
  }
  spng_ihdr ihdr{};
  ihdr.width = static_cast<std::uint32_t>(width);
  ihdr.height = static_cast<std::uint32_t>(height);
  ihdr.bit_depth = 8;
  ihdr.interlace_method = spec.interlaced ? SPNG_INTERLACE_ADAM7 : SPNG_INTERLACE_NONE;
  Bytes samples;
  spng_plte palette{};
  switch (spec.kind) {
    case PngKind::kRgb:
      ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR;
      samples = rgb;
      break;
    case PngKind::kRgba:
      ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
      samples.reserve(pixels * 4);
      for (std::size_t i = 0; i < pixels; ++i) {
        samples.insert(samples.end(), &rgb[3 * i], &rgb[3 * i] + 3);
        samples.push_back(
            alpha_at(static_cast<int>(i % width), static_cast<int>(i / width), width, height));
      }
      break;
    case PngKind::kGray:
    case PngKind::kGrayAlpha:
      ihdr.color_type =
          spec.kind == PngKind::kGray ? SPNG_COLOR_TYPE_GRAYSCALE : SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
      for (std::size_t i = 0; i < pixels; ++i) {
        samples.push_back(luma(&rgb[3 * i]));
        if (spec.kind == PngKind::kGrayAlpha) {
          samples.push_back(
              alpha_at(static_cast<int>(i % width), static_cast<int>(i / width), width, height));
        }
      }
      break;
    case PngKind::kPalette:
      ihdr.color_type = SPNG_COLOR_TYPE_INDEXED;
      palette.n_entries = 216;
      for (int i = 0; i < 216; ++i) {
        palette.entries[i].red = static_cast<std::uint8_t>(51 * (i / 36));
        palette.entries[i].green = static_cast<std::uint8_t>(51 * (i / 6 % 6));
        palette.entries[i].blue = static_cast<std::uint8_t>(51 * (i % 6));
      }
      for (std::size_t i = 0; i < pixels; ++i) {
        const auto level = [&](int c) { return (rgb[3 * i + c] + 25) / 51; };
        samples.push_back(static_cast<unsigned char>(36 * level(0) + 6 * level(1) + level(2)));
      }
      break;
    case PngKind::kRgb16:
    case PngKind::kGray16: {
      ihdr.bit_depth = 16;
      const bool gray = spec.kind == PngKind::kGray16;
      ihdr.color_type = gray ? SPNG_COLOR_TYPE_GRAYSCALE : SPNG_COLOR_TYPE_TRUECOLOR;
      // Host-endian 16-bit samples; the low byte varies so that dropping it is visible.
      for (std::size_t i = 0; i < pixels; ++i) {
        for (int c = 0; c < (gray ? 1 : 3); ++c) {
          const unsigned v = gray ? luma(&rgb[3 * i]) : rgb[3 * i + c];
          const std::uint16_t sample = static_cast<std::uint16_t>(v * 256 + (i * 7 + c) % 256);
          const auto* bytes = reinterpret_cast<const unsigned char*>(&sample);
          samples.insert(samples.end(), bytes, bytes + 2);
        }
      }
      break;
    }
  }
  std::unique_ptr<spng_ctx, SpngFree> ctx(spng_ctx_new(SPNG_CTX_ENCODER));
  if (!ctx) throw std::runtime_error("encode_png: cannot create a libspng encoder");
  check_spng(spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1), "to buffer");
  check_spng(spng_set_ihdr(ctx.get(), &ihdr), "IHDR");
  if (spec.kind == PngKind::kPalette) check_spng(spng_set_plte(ctx.get(), &palette), "PLTE");
  check_spng(spng_encode_image(ctx.get(), samples.data(), samples.size(), SPNG_FMT_PNG,
                               SPNG_ENCODE_FINALIZE),
             "encode");
  std::size_t length = 0;
  int error = 0;
  void* png = spng_get_png_buffer(ctx.get(), &length, &error);
  check_spng(error, "buffer");
  Bytes out(static_cast<unsigned char*>(png), static_cast<unsigned char*>(png) + length);
  std::free(png);
  return out;
}

Bytes encode_webp(const std::vector<unsigned char>& rgb, int width, int height, bool lossless,
                  bool alpha, int quality) {
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  if (width <= 0 || height <= 0 || rgb.size() != pixels * 3) {
    throw std::invalid_argument("encode_webp: size mismatch");
  }
  std::uint8_t* encoded = nullptr;
  std::size_t length = 0;
  if (alpha) {
    Bytes rgba;
    rgba.reserve(pixels * 4);
    for (std::size_t i = 0; i < pixels; ++i) {
      rgba.insert(rgba.end(), &rgb[3 * i], &rgb[3 * i] + 3);
      rgba.push_back(
          alpha_at(static_cast<int>(i % width), static_cast<int>(i / width), width, height));
    }
    length = lossless ? WebPEncodeLosslessRGBA(rgba.data(), width, height, width * 4, &encoded)
                      : WebPEncodeRGBA(rgba.data(), width, height, width * 4,
                                       static_cast<float>(quality), &encoded);
  } else {
    length = lossless ? WebPEncodeLosslessRGB(rgb.data(), width, height, width * 3, &encoded)
                      : WebPEncodeRGB(rgb.data(), width, height, width * 3,
                                      static_cast<float>(quality), &encoded);
  }
  if (length == 0) throw std::runtime_error("encode_webp: libwebp failed");
  Bytes out(encoded, encoded + length);
  WebPFree(encoded);
  return out;
}

Bytes encode_bmp(const std::vector<unsigned char>& rgb, int width, int height, int bits,
                 bool top_down) {
  if (width <= 0 || height <= 0 || rgb.size() != static_cast<std::size_t>(width) * height * 3 ||
      (bits != 24 && bits != 32)) {
    throw std::invalid_argument("encode_bmp: size mismatch or bits not 24 or 32");
  }
  const std::uint32_t stride = (static_cast<std::uint32_t>(width) * bits + 31) / 32 * 4;
  const std::uint32_t data_size = stride * static_cast<std::uint32_t>(height);
  Bytes out = {'B', 'M'};
  put32le(out, 54 + data_size);
  put32le(out, 0);
  put32le(out, 54);
  put32le(out, 40);
  put32le(out, static_cast<std::uint32_t>(width));
  put32le(out, static_cast<std::uint32_t>(top_down ? -height : height));
  put16le(out, 1);
  put16le(out, static_cast<unsigned>(bits));
  for (int i = 0; i < 6; ++i) put32le(out, i == 1 ? data_size : 0);  // BI_RGB, sizes, colours
  for (int row = 0; row < height; ++row) {
    const int y = top_down ? row : height - 1 - row;
    const std::size_t start = out.size();
    for (int x = 0; x < width; ++x) {
      const unsigned char* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
      out.insert(out.end(), {p[2], p[1], p[0]});
      if (bits == 32) out.push_back(alpha_at(x, y, width, height));
    }
    out.resize(start + stride, 0);
  }
  return out;
}

Bytes encode_pnm(const std::vector<unsigned char>& rgb, int width, int height, bool gray) {
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  if (width <= 0 || height <= 0 || rgb.size() != pixels * 3) {
    throw std::invalid_argument("encode_pnm: size mismatch");
  }
  const std::string header = std::string(gray ? "P5" : "P6") + "\n# feedrate datagen\n" +
                             std::to_string(width) + " " + std::to_string(height) + "\n255\n";
  Bytes out(header.begin(), header.end());
  if (!gray) {
    out.insert(out.end(), rgb.begin(), rgb.end());
    return out;
  }
  for (std::size_t i = 0; i < pixels; ++i) out.push_back(luma(&rgb[3 * i]));
  return out;
}

Bytes encode_tiff(const std::vector<unsigned char>& rgb, int width, int height) {
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  if (width <= 0 || height <= 0 || rgb.size() != pixels * 3) {
    throw std::invalid_argument("encode_tiff: size mismatch");
  }
  // Header, then the IFD (10 entries), then BitsPerSample's three values, then the strip.
  constexpr std::uint32_t kEntries = 10;
  constexpr std::uint32_t kIfd = 8;
  constexpr std::uint32_t kBits = kIfd + 2 + kEntries * 12 + 4;
  constexpr std::uint32_t kStrip = kBits + 6;
  Bytes out = {'I', 'I', 42, 0};
  put32le(out, kIfd);
  put16le(out, kEntries);
  const auto entry = [&](unsigned tag, unsigned type, std::uint32_t count, std::uint32_t value) {
    put16le(out, tag);
    put16le(out, type);
    put32le(out, count);
    put32le(out, value);  // a SHORT sits in the low half, little-endian
  };
  constexpr unsigned kShort = 3, kLong = 4;
  entry(256, kLong, 1, static_cast<std::uint32_t>(width));
  entry(257, kLong, 1, static_cast<std::uint32_t>(height));
  entry(258, kShort, 3, kBits);
  entry(259, kShort, 1, 1);  // no compression
  entry(262, kShort, 1, 2);  // RGB
  entry(273, kLong, 1, kStrip);
  entry(277, kShort, 1, 3);
  entry(278, kLong, 1, static_cast<std::uint32_t>(height));
  entry(279, kLong, 1, static_cast<std::uint32_t>(pixels * 3));
  entry(284, kShort, 1, 1);  // chunky
  put32le(out, 0);           // no next IFD
  for (int i = 0; i < 3; ++i) put16le(out, 8);
  out.insert(out.end(), rgb.begin(), rgb.end());
  return out;
}

namespace {

enum class Mixed {
  kJpeg,
  kPng,
  kPalettePng,
  kPng16,
  kInterlacedRgbaPng,
  kGrayAlphaPng,
  kWebpLossy,
  kWebpLosslessAlpha,
  kBmp24,
  kBmp32TopDown,
  kPpm,
  kPngNamedJpeg,
  kCmykJpeg,
  kTiff,
  kPgm,
  kGray16Png,
  kInterlacedGrayPng,
  kCount
};

struct MixedEntry {
  const char* extension;
  const char* what;
};

constexpr MixedEntry kMixed[] = {
    {".jpg", "RGB JPEG"},
    {".png", "RGB PNG"},
    {".png", "palette PNG"},
    {".png", "16-bit RGB PNG"},
    {".PNG", "interlaced RGBA PNG"},
    {".png", "gray + alpha PNG"},
    {".webp", "lossy WebP"},
    {".WebP", "lossless WebP with alpha"},
    {".bmp", "24-bit BMP"},
    {".BMP", "32-bit top-down BMP"},
    {".ppm", "PPM"},
    {".JPEG", "PNG named .JPEG"},
    {".jpeg", "CMYK JPEG"},
    {".tif", "TIFF"},
    {".pgm", "PGM"},
    {".png", "16-bit gray PNG"},
    {".png", "interlaced gray PNG"},
};
static_assert(std::size(kMixed) == static_cast<std::size_t>(Mixed::kCount));
static_assert(std::size(kMixed) == kMixedKinds);

}  // namespace

MixedKind mixed_kind(int index) {
  const MixedEntry& entry = kMixed[static_cast<std::size_t>(index) % std::size(kMixed)];
  return {entry.extension, entry.what};
}

Bytes encode_mixed(std::uint64_t seed, int index, int width, int height, int quality) {
  const auto kind = static_cast<Mixed>(static_cast<std::size_t>(index) % std::size(kMixed));
  if (kind == Mixed::kJpeg || kind == Mixed::kCmykJpeg) {
    JpegSpec spec;
    spec.width = width;
    spec.height = height;
    spec.quality = quality;
    if (kind == Mixed::kCmykJpeg) spec.color = ColorKind::kCmyk;
    return make_jpeg(seed, spec);
  }
  const std::vector<unsigned char> rgb = make_rgb_pixels(seed, width, height);
  switch (kind) {
    case Mixed::kPng:
    case Mixed::kPngNamedJpeg:
      return encode_png(rgb, width, height, {PngKind::kRgb, false});
    case Mixed::kPalettePng:
      return encode_png(rgb, width, height, {PngKind::kPalette, false});
    case Mixed::kPng16:
      return encode_png(rgb, width, height, {PngKind::kRgb16, false});
    case Mixed::kInterlacedRgbaPng:
      return encode_png(rgb, width, height, {PngKind::kRgba, true});
    case Mixed::kGrayAlphaPng:
      return encode_png(rgb, width, height, {PngKind::kGrayAlpha, false});
    case Mixed::kGray16Png:
      return encode_png(rgb, width, height, {PngKind::kGray16, false});
    case Mixed::kInterlacedGrayPng:
      return encode_png(rgb, width, height, {PngKind::kGray, true});
    case Mixed::kWebpLossy:
      return encode_webp(rgb, width, height, false, false, quality);
    case Mixed::kWebpLosslessAlpha:
      return encode_webp(rgb, width, height, true, true);
    case Mixed::kBmp24:
      return encode_bmp(rgb, width, height, 24, false);
    case Mixed::kBmp32TopDown:
      return encode_bmp(rgb, width, height, 32, true);
    case Mixed::kPpm:
      return encode_pnm(rgb, width, height, false);
    case Mixed::kPgm:
      return encode_pnm(rgb, width, height, true);
    case Mixed::kTiff:
      return encode_tiff(rgb, width, height);
    default:
      break;
  }
  throw std::logic_error("encode_mixed: unhandled kind");
}

}  // namespace feedrate::datagen
