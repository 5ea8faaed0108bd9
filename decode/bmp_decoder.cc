// BMP, parsed here as Pillow 9.4's BmpImagePlugin reads it: Debian has no maintained decoding
// library for it (the readers come inside large toolkits such as ImageMagick or SDL). Headers of
// 12 (OS/2 1.x), 40, 64, 108 and 124 bytes; 1-, 4- and 8-bit palettes; RLE8 and RLE4; 16-bit
// (5-5-5, or 5-6-5 through bit fields), 24- and 32-bit, with the bit-field masks Pillow knows.
// Every field is read with bounds checks, every size computed in 64 bits, and the declared size
// checked against the pixel limit before allocating.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

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

constexpr std::uint64_t kFileHeader = 14;
constexpr std::uint32_t kRaw = 0, kRle8 = 1, kRle4 = 2, kBitfields = 3;

// Where each colour sits in a pixel, for the layouts Pillow reads.
enum class Layout { kPalette, kBgr15, kBgr16, kBgr, kBgrx, kXbgr, kRgba };

// The bit-field masks Pillow 9.4 accepts (BmpImagePlugin's SUPPORTED), and what each means.
bool layout_of_masks(int bits, const std::uint32_t mask[4], bool has_alpha_mask, Layout& layout) {
  auto is = [&](std::uint32_t r, std::uint32_t g, std::uint32_t b, std::uint32_t a) {
    return mask[0] == r && mask[1] == g && mask[2] == b && (has_alpha_mask ? mask[3] : 0) == a;
  };
  if (bits == 32) {
    if (is(0xFF0000, 0xFF00, 0xFF, 0) || is(0xFF0000, 0xFF00, 0xFF, 0xFF000000) || is(0, 0, 0, 0)) {
      layout = Layout::kBgrx;
    } else if (is(0xFF000000, 0xFF0000, 0xFF00, 0) || is(0xFF000000, 0xFF0000, 0xFF00, 0xFF)) {
      layout = Layout::kXbgr;
    } else if (is(0xFF, 0xFF00, 0xFF0000, 0xFF000000)) {
      layout = Layout::kRgba;
    } else {
      return false;
    }
    return true;
  }
  // 24- and 16-bit: Pillow compares the colour masks only.
  auto rgb = [&](std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    return mask[0] == r && mask[1] == g && mask[2] == b;
  };
  if (bits == 24 && rgb(0xFF0000, 0xFF00, 0xFF))
    layout = Layout::kBgr;
  else if (bits == 16 && rgb(0xF800, 0x7E0, 0x1F))
    layout = Layout::kBgr16;
  else if (bits == 16 && rgb(0x7C00, 0x3E0, 0x1F))
    layout = Layout::kBgr15;
  else
    return false;
  return true;
}

// Pillow's BmpRleDecoder, quirks included (runs clipped at the row's end, absolute runs not;
// an odd RLE4 absolute run yields one pixel less; word alignment by file offset; a delta
// escape takes four bytes): palette
// indices for width x height pixels in file row order. False when the data ends first.
bool decode_rle(std::span<const std::uint8_t> bytes, std::uint64_t at, bool rle4,
                std::uint64_t width, std::uint64_t total, std::vector<std::uint8_t>& indices) {
  indices.assign(total, 0);
  std::uint64_t n = 0, x = 0;  // n: indices produced (past `total` they are dropped)
  auto push = [&](std::uint8_t v) {
    if (n < total) indices[n] = v;
    ++n;
  };
  while (n < total) {
    if (at + 2 > bytes.size()) break;
    std::uint64_t count = bytes[at];
    const std::uint8_t byte = bytes[at + 1];
    at += 2;
    if (count != 0) {
      if (x + count > width) count = x < width ? width - x : 0;
      for (std::uint64_t i = 0; i < count; ++i) {
        push(rle4 ? (i % 2 == 0 ? byte >> 4 : byte & 0x0F) : byte);
      }
      x += count;
    } else if (byte == 0) {  // end of line
      while (n % width != 0 && n < total) push(0);
      if (n >= total) break;
      x = 0;
    } else if (byte == 1) {  // end of bitmap
      break;
    } else if (byte == 2) {
      // A delta (right, up). Pillow 9.4 reads two bytes, then takes right and up from the two
      // after them; a file that ends before those fails to load there.
      if (at + 2 > bytes.size()) break;
      if (at + 4 > bytes.size()) return false;
      const std::uint64_t skip = bytes[at + 2] + static_cast<std::uint64_t>(bytes[at + 3]) * width;
      at += 4;
      n += skip;  // zeros, already in place
      x = n % width;
    } else {  // an absolute run of `byte` pixels
      const std::uint64_t wanted = rle4 ? byte / 2 : byte;
      const std::uint64_t got = std::min<std::uint64_t>(wanted, bytes.size() - at);
      for (std::uint64_t i = 0; i < got; ++i) {
        if (rle4) {
          push(bytes[at + i] >> 4);
          push(bytes[at + i] & 0x0F);
        } else {
          push(bytes[at + i]);
        }
      }
      at += got;
      if (got < wanted) break;
      x += byte;
      if (at % 2 != 0) ++at;
    }
  }
  return n >= total;
}

}  // namespace

DecodeStatus decode_bmp_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                             RgbImage& out) {
  if (bytes.size() < kFileHeader + 4) return bmp_error(DecodeErrc::kTruncated, "header cut short");
  const std::uint8_t* p = bytes.data();
  std::uint64_t data_offset = u32le(p + 10);
  const std::uint32_t info_size = u32le(p + 14);
  if (info_size != 12 && info_size != 40 && info_size != 64 && info_size != 108 &&
      info_size != 124) {
    return bmp_error(DecodeErrc::kUnsupported,
                     "info header of " + std::to_string(info_size) + " bytes");
  }
  if (bytes.size() < kFileHeader + info_size) {
    return bmp_error(DecodeErrc::kTruncated, "header cut short");
  }
  std::int64_t width = 0, height = 0;
  std::uint32_t compression = kRaw, colors = 0;
  std::uint16_t bits = 0;
  bool top_down = false;
  int entry_bytes = 4;  // a palette entry: BGRX, or BGR in OS/2 1.x files
  if (info_size == 12) {
    width = u16le(p + 18);
    height = u16le(p + 20);
    bits = u16le(p + 24);
    entry_bytes = 3;
  } else {
    // Pillow takes a height whose top byte is 0xFF as negative (top-down), any other as unsigned.
    top_down = p[25] == 0xFF;
    width = u32le(p + 18);
    height = top_down ? (std::int64_t{1} << 32) - u32le(p + 22) : u32le(p + 22);
    bits = u16le(p + 28);
    compression = u32le(p + 30);
    colors = u32le(p + 46);
  }
  if (DecodeStatus status = check_declared_size(ImageFormat::kBmp, width, height, limits);
      !status.ok()) {
    return status;
  }
  if (bits != 1 && bits != 4 && bits != 8 && bits != 16 && bits != 24 && bits != 32) {
    return bmp_error(DecodeErrc::kUnsupported, std::to_string(bits) + " bits per pixel");
  }
  std::uint64_t after_header = kFileHeader + info_size;
  Layout layout = bits <= 8    ? Layout::kPalette
                  : bits == 16 ? Layout::kBgr15
                  : bits == 24 ? Layout::kBgr
                               : Layout::kBgrx;
  if (compression == kBitfields) {
    // The masks sit at offset 54: inside a header of 64 bytes or more (with alpha), or in
    // 12 bytes after a 40-byte one (without).
    const bool in_header = info_size >= 56;
    if (!in_header) after_header += 12;
    if (bytes.size() < kFileHeader + 40 + 16) {
      return bmp_error(DecodeErrc::kTruncated, "masks cut short");
    }
    const std::uint32_t mask[4] = {u32le(p + 54), u32le(p + 58), u32le(p + 62), u32le(p + 66)};
    if (bits <= 8 || !layout_of_masks(bits, mask, in_header, layout)) {
      char masks[96];
      std::snprintf(masks, sizeof(masks), "%d-bit bit fields %08x/%08x/%08x", bits, mask[0],
                    mask[1], mask[2]);
      return bmp_error(DecodeErrc::kUnsupported, masks);
    }
  } else if (compression == kRle8 || compression == kRle4) {
    if (bits != (compression == kRle8 ? 8 : 4)) {
      return bmp_error(DecodeErrc::kUnsupported,
                       std::string(compression == kRle8 ? "RLE8" : "RLE4") + " with " +
                           std::to_string(bits) + " bits per pixel");
    }
  } else if (compression != kRaw) {
    return bmp_error(DecodeErrc::kUnsupported, "compression " + std::to_string(compression) +
                                                   (compression == 4   ? " (JPEG)"
                                                    : compression == 5 ? " (PNG)"
                                                                       : ""));
  }
  // The palette; indices past it are the gray of their value, as in Pillow's palettes.
  std::uint8_t palette[256][3];
  for (int i = 0; i < 256; ++i)
    palette[i][0] = palette[i][1] = palette[i][2] = static_cast<std::uint8_t>(i);
  std::uint64_t count = 0;
  if (bits <= 8) {
    count = colors != 0 ? colors : 1u << bits;
    if (count > 256) {
      return bmp_error(DecodeErrc::kUnsupported,
                       "palette of " + std::to_string(count) + " colours");
    }
    if (after_header + count * entry_bytes > bytes.size()) {
      return bmp_error(DecodeErrc::kTruncated, "palette cut short");
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint8_t* e = p + after_header + entry_bytes * i;
      palette[i][0] = e[2];
      palette[i][1] = e[1];
      palette[i][2] = e[0];
    }
    // Pillow: a pixel offset that points at the palette itself means "after the palette" (of
    // four-byte entries, whatever the header).
    if (data_offset == kFileHeader + info_size) data_offset += 4 * count;
  }
  if (data_offset == 0) data_offset = after_header + count * entry_bytes;
  const std::uint64_t w = static_cast<std::uint64_t>(width), h = static_cast<std::uint64_t>(height);
  out.width = static_cast<int>(width);
  out.height = static_cast<int>(height);
  out.pixels.resize(w * h * 3);
  if (compression == kRle8 || compression == kRle4) {
    if (data_offset > bytes.size() ||
        !decode_rle(bytes, data_offset, compression == kRle4, w, w * h, out.raw)) {
      return bmp_error(DecodeErrc::kTruncated, "RLE data ends before the image does");
    }
    for (std::uint64_t r = 0; r < h; ++r) {
      const std::uint8_t* row = out.raw.data() + r * w;
      std::uint8_t* dst = &out.pixels[(top_down ? r : h - 1 - r) * w * 3];
      for (std::uint64_t x = 0; x < w; ++x) std::memcpy(dst + 3 * x, palette[row[x]], 3);
    }
    return {};
  }
  const std::uint64_t stride = (w * bits + 31) / 32 * 4;
  if (data_offset > bytes.size() || stride * h > bytes.size() - data_offset) {
    return bmp_error(DecodeErrc::kTruncated, "pixel data ends before the image does (" +
                                                 std::to_string(bytes.size()) + " bytes)");
  }
  for (std::uint64_t r = 0; r < h; ++r) {
    const std::uint8_t* row = p + data_offset + stride * r;
    std::uint8_t* dst = &out.pixels[(top_down ? r : h - 1 - r) * w * 3];
    for (std::uint64_t x = 0; x < w; ++x, dst += 3) {
      switch (layout) {
        case Layout::kPalette: {
          const std::uint64_t bit = x * bits;
          const int index = (row[bit / 8] >> (8 - bits - bit % 8)) & ((1 << bits) - 1);
          std::memcpy(dst, palette[index], 3);
          break;
        }
        case Layout::kBgr15:
        case Layout::kBgr16: {
          // Pillow's BGR;15 and BGR;16 unpackers: each field scaled by 255 / its maximum.
          const int v = u16le(row + 2 * x);
          const bool wide_green = layout == Layout::kBgr16;
          dst[0] = static_cast<std::uint8_t>(((v >> (wide_green ? 11 : 10)) & 31) * 255 / 31);
          dst[1] = static_cast<std::uint8_t>(wide_green ? ((v >> 5) & 63) * 255 / 63
                                                        : ((v >> 5) & 31) * 255 / 31);
          dst[2] = static_cast<std::uint8_t>((v & 31) * 255 / 31);
          break;
        }
        case Layout::kBgr:
        case Layout::kBgrx: {
          const std::uint8_t* px = row + x * (bits / 8);
          dst[0] = px[2];
          dst[1] = px[1];
          dst[2] = px[0];
          break;
        }
        case Layout::kXbgr: {
          const std::uint8_t* px = row + 4 * x;
          dst[0] = px[3];
          dst[1] = px[2];
          dst[2] = px[1];
          break;
        }
        case Layout::kRgba:
          std::memcpy(dst, row + 4 * x, 3);
          break;
      }
    }
  }
  return {};
}

}  // namespace feedrate::decode
