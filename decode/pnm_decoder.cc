// PBM, PGM and PPM (P1-P6), parsed here as Pillow 9.4's PpmImagePlugin reads them: Debian has no
// small maintained library for them (netpbm's is a toolkit), and the format is a few dozen
// lines. Plain (ASCII) and binary, bitmaps, and maxval 1 to 65535, scaled as Pillow scales
// them: Python's round(value / maxval * 255), or * 65535 for a PGM above 255, which Pillow
// opens as 32-bit integers that convert("RGB") then clips to 255. Every read is bounds-checked
// and the declared size checked against the pixel limit before allocating.
#include <algorithm>
#include <cmath>
#include <string>

#include "decode/format.h"

namespace feedrate::decode {
namespace {

bool is_space(std::uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Reads PNM tokens as Pillow does: whitespace separates them, and a '#' comment runs to the
// end of its line without separating anything (it is cut out first).
class Tokens {
 public:
  Tokens(std::span<const std::uint8_t> bytes, std::size_t at) : bytes_(bytes), at_(at) {}

  // The next token of at most `longest` bytes; false at the end or when it is longer. The
  // whitespace byte that ends it is consumed.
  bool next(std::string& token, std::size_t longest) {
    token.clear();
    while (at_ < bytes_.size()) {
      const std::uint8_t c = bytes_[at_++];
      if (c == '#') {
        skip_comment();
      } else if (is_space(c)) {
        if (!token.empty()) break;
      } else {
        if (token.size() == longest) return false;
        token.push_back(static_cast<char>(c));
      }
    }
    return !token.empty();
  }

  // A decimal number of at most `longest` digits.
  bool number(std::int64_t& value, std::size_t longest = 10) {
    std::string token;
    if (!next(token, longest)) return false;
    value = 0;
    for (const char c : token) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    return true;
  }

  // The next non-space byte (plain bitmaps need no space between samples); -1 at the end.
  int bit() {
    while (at_ < bytes_.size()) {
      const std::uint8_t c = bytes_[at_++];
      if (c == '#') {
        skip_comment();
      } else if (!is_space(c)) {
        return c;
      }
    }
    return -1;
  }

  std::size_t position() const { return at_; }

 private:
  // After a '#': the comment runs to the end of its line, which it consumes.
  void skip_comment() {
    while (at_ < bytes_.size() && bytes_[at_] != '\n' && bytes_[at_] != '\r') ++at_;
    if (at_ < bytes_.size()) ++at_;
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t at_;
};

DecodeStatus pnm_error(DecodeErrc code, const std::string& what) {
  return {code, "PNM: " + what};
}

}  // namespace

DecodeStatus decode_pnm_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                             RgbImage& out) {
  const char kind = bytes.size() >= 2 ? static_cast<char>(bytes[1]) : '?';
  if (kind < '1' || kind > '6') {
    return pnm_error(DecodeErrc::kUnsupported,
                     std::string("P") + kind + " (P1-P6 are supported; P7 is PAM)");
  }
  // Pillow reads the magic number up to a whitespace byte.
  if (bytes.size() < 3 || !is_space(bytes[2])) {
    return pnm_error(DecodeErrc::kCorrupt, "no whitespace after the magic number");
  }
  Tokens tokens(bytes, 3);
  const bool bitmap = kind == '1' || kind == '4';
  const bool plain = kind <= '3';
  std::int64_t width = 0, height = 0, maxval = 1;
  if (!tokens.number(width) || !tokens.number(height) || (!bitmap && !tokens.number(maxval))) {
    return pnm_error(
        tokens.position() >= bytes.size() ? DecodeErrc::kTruncated : DecodeErrc::kCorrupt,
        "malformed header");
  }
  if (DecodeStatus status = check_declared_size(ImageFormat::kPnm, width, height, limits);
      !status.ok()) {
    return status;
  }
  if (maxval < 1 || maxval > 65535) {
    return pnm_error(DecodeErrc::kCorrupt,
                     "maxval " + std::to_string(maxval) + " (it must be 1 to 65535)");
  }
  const int channels = kind == '3' || kind == '6' ? 3 : 1;
  // A PGM above 255 becomes 32-bit integers in Pillow (scaled to 65535), clipped to 255 by
  // convert("RGB"); everything else is scaled to 255.
  const double out_max = channels == 1 && maxval > 255 ? 65535 : 255;
  auto level = [&](std::int64_t v) {
    const double scaled = std::nearbyint(static_cast<double>(v) / maxval * out_max);
    return static_cast<std::uint8_t>(std::min(scaled, 255.0));
  };
  const std::uint64_t pixels = static_cast<std::uint64_t>(width) * height;
  const std::uint64_t samples = pixels * channels;
  out.width = static_cast<int>(width);
  out.height = static_cast<int>(height);
  out.raw.resize(samples);
  const std::size_t at = tokens.position();
  const std::uint64_t left = bytes.size() - at;
  auto truncated = [&] {
    return pnm_error(DecodeErrc::kTruncated, "samples end before the image does (" +
                                                 std::to_string(bytes.size()) + " bytes)");
  };
  if (kind == '1') {
    for (std::uint64_t i = 0; i < samples; ++i) {
      const int c = tokens.bit();
      if (c == -1) return truncated();
      if (c != '0' && c != '1') return pnm_error(DecodeErrc::kCorrupt, "a P1 sample is not 0 or 1");
      out.raw[i] = c == '1' ? 0 : 255;
    }
  } else if (kind == '4') {
    const std::uint64_t row_bytes = (static_cast<std::uint64_t>(width) + 7) / 8;
    if (row_bytes * height > left) return truncated();
    for (std::int64_t y = 0; y < height; ++y) {
      const std::uint8_t* row = bytes.data() + at + y * row_bytes;
      for (std::int64_t x = 0; x < width; ++x) {
        out.raw[y * width + x] = (row[x / 8] >> (7 - x % 8)) & 1 ? 0 : 255;
      }
    }
  } else if (plain) {
    for (std::uint64_t i = 0; i < samples; ++i) {
      std::int64_t v = 0;
      if (!tokens.number(v)) {
        if (tokens.position() >= bytes.size()) return truncated();
        return pnm_error(DecodeErrc::kCorrupt, "a sample is not a number of up to 10 digits");
      }
      if (v > maxval) {
        return pnm_error(DecodeErrc::kCorrupt,
                         "sample " + std::to_string(v) + " above maxval " + std::to_string(maxval));
      }
      out.raw[i] = level(v);
    }
  } else if (maxval == 255) {
    if (samples > left) return truncated();
    std::copy_n(bytes.data() + at, samples, out.raw.data());
  } else {
    const int width_bytes = maxval < 256 ? 1 : 2;  // big-endian above 255
    if (samples * width_bytes > left) return truncated();
    const std::uint8_t* s = bytes.data() + at;
    for (std::uint64_t i = 0; i < samples; ++i) {
      out.raw[i] = level(width_bytes == 1 ? s[i] : (s[2 * i] << 8) | s[2 * i + 1]);
    }
  }
  out.pixels.resize(pixels * 3);
  if (channels == 3) {
    std::copy_n(out.raw.data(), samples, out.pixels.data());
  } else {
    for (std::uint64_t i = 0; i < pixels; ++i) {
      out.pixels[3 * i] = out.pixels[3 * i + 1] = out.pixels[3 * i + 2] = out.raw[i];
    }
  }
  return {};
}

}  // namespace feedrate::decode
