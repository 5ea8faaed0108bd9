// JPEG encoding of synthetic pixels (encode_jpeg, make_jpeg): colour conversion to the stored
// colour space, then TurboJPEG, or libjpeg when restart markers are requested.

#include <turbojpeg.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/datagen/datagen.h"
#include "bench/datagen/jpeg_libjpeg.h"

namespace feedrate::datagen {
namespace {

// BT.601 luma in 16-bit fixed point, the weights libjpeg uses for RGB -> Y.
std::vector<unsigned char> to_gray(const std::vector<unsigned char>& rgb) {
  std::vector<unsigned char> gray(rgb.size() / 3);
  for (std::size_t i = 0; i < gray.size(); ++i) {
    const unsigned char* p = &rgb[i * 3];
    gray[i] =
        static_cast<unsigned char>((19595u * p[0] + 38470u * p[1] + 7471u * p[2] + 32768u) >> 16);
  }
  return gray;
}

// Adobe CMYK, as TurboJPEG's TJPF_CMYK expects: values are inverted (255 = no ink). With
// K = 1 - max/255 and C = (1 - R/255 - K) / (1 - K), the inverted channels simplify to
// K' = max and C' = 255 R / max, so decoding CMYK -> RGB (R = C' K' / 255) gives back the input.
std::vector<unsigned char> to_cmyk(const std::vector<unsigned char>& rgb) {
  const std::size_t pixels = rgb.size() / 3;
  std::vector<unsigned char> cmyk(pixels * 4);
  for (std::size_t i = 0; i < pixels; ++i) {
    const unsigned char* p = &rgb[i * 3];
    unsigned char* q = &cmyk[i * 4];
    const unsigned max = std::max({p[0], p[1], p[2]});
    for (int c = 0; c < 3; ++c) {
      q[c] = max == 0 ? 255 : static_cast<unsigned char>((p[c] * 255u + max / 2) / max);
    }
    q[3] = static_cast<unsigned char>(max);
  }
  return cmyk;
}

int tj_subsampling(const JpegSpec& spec) {
  if (spec.color == ColorKind::kGray) return TJSAMP_GRAY;
  switch (spec.subsampling) {
    case Subsampling::k444:
      return TJSAMP_444;
    case Subsampling::k422:
      return TJSAMP_422;
    case Subsampling::k420:
      return TJSAMP_420;
  }
  throw std::invalid_argument("encode_jpeg: bad subsampling");
}

std::vector<unsigned char> encode_with_turbojpeg(const unsigned char* pixels, int pixel_format,
                                                 const JpegSpec& spec) {
  const std::unique_ptr<void, int (*)(tjhandle)> handle(tjInitCompress(), tjDestroy);
  if (!handle) throw std::runtime_error(std::string("tjInitCompress: ") + tjGetErrorStr2(nullptr));
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  const int flags = spec.progressive ? TJFLAG_PROGRESSIVE : 0;
  const int rc = tjCompress2(handle.get(), pixels, spec.width, 0, spec.height, pixel_format,
                             &buffer, &size, tj_subsampling(spec), spec.quality, flags);
  const std::unique_ptr<unsigned char, void (*)(unsigned char*)> owned(buffer, tjFree);
  if (rc != 0) {
    throw std::runtime_error(std::string("tjCompress2: ") + tjGetErrorStr2(handle.get()));
  }
  return {buffer, buffer + size};
}

}  // namespace

std::vector<unsigned char> encode_jpeg(const std::vector<unsigned char>& rgb,
                                       const JpegSpec& spec) {
  if (spec.width <= 0 || spec.height <= 0 ||
      rgb.size() != static_cast<std::size_t>(spec.width) * spec.height * 3) {
    throw std::invalid_argument("encode_jpeg: " + std::to_string(rgb.size()) +
                                " bytes do not hold a " + std::to_string(spec.width) + "x" +
                                std::to_string(spec.height) + " RGB image");
  }
  if (spec.quality < 1 || spec.quality > 100) {
    throw std::invalid_argument("encode_jpeg: quality " + std::to_string(spec.quality) +
                                " outside [1, 100]");
  }
  if (spec.restart_interval_rows < 0 || spec.restart_interval_rows > 65535) {
    throw std::invalid_argument("encode_jpeg: restart interval " +
                                std::to_string(spec.restart_interval_rows) +
                                " rows outside [0, 65535]");
  }
  std::vector<unsigned char> converted;
  const unsigned char* pixels = rgb.data();
  int pixel_format = TJPF_RGB;
  if (spec.color == ColorKind::kGray) {
    converted = to_gray(rgb);
    pixels = converted.data();
    pixel_format = TJPF_GRAY;
  } else if (spec.color == ColorKind::kCmyk) {
    converted = to_cmyk(rgb);
    pixels = converted.data();
    pixel_format = TJPF_CMYK;
  }
  if (spec.restart_interval_rows > 0) return encode_with_libjpeg(pixels, spec);
  return encode_with_turbojpeg(pixels, pixel_format, spec);
}

std::vector<unsigned char> make_jpeg(std::uint64_t seed, const JpegSpec& spec) {
  return encode_jpeg(make_rgb_pixels(seed, spec.width, spec.height), spec);
}

}  // namespace feedrate::datagen
