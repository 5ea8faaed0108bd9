// Decodes one JPEG and applies a transform (crop, resize, flip) straight into a caller's buffer.
//
// The decoder reads the header first and rejects images above the pixel limit before any
// pixel memory is allocated; then it picks a DCT scaling factor (kDctScaleDenominators),
// and decodes only the rows and columns the transform's filter reads (jpeg_crop_scanline,
// jpeg_skip_scanlines), stopping after the last needed row. Grayscale becomes RGB; CMYK/YCCK become
// RGB as PIL does. A packed JPEG (decode/restart_index.h) is recognised by its restart index:
// only the restart intervals around the crop are decoded, from a smaller JPEG built of them,
// with the same pixels as a decode of the whole image. libjpeg's warnings (corrupt but decodable
// data) are accepted or rejected as DecodeLimits::on_warning says; fatal errors always fail the
// image.
//
// Thread-safety: an ImageDecoder holds one libjpeg handle and scratch buffers; use one per
// thread. It allocates only while its scratch buffers grow to the largest image seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "decode/resize.h"
#include "decode/restart_index.h"
#include "decode/status.h"
#include "decode/transform.h"

namespace feedrate::decode {

// The DCT scales 1/d the decoder may pick, smallest first; it takes the first whose scaled crop
// keeps kScaledPixelsPerOutput pixels per output pixel on each side, else full size. Measured
// with libjpeg-turbo 2.1 (feedrate-decode-bench times every factor M/8, with and without the
// resize, and says whether this still holds): the other factors decode slower than full size,
// 1/2 decodes about as fast and pays through the smaller resize, 1/4 and 1/8 decode faster.
inline constexpr int kDctScaleDenominators[] = {8, 4, 2};
// The quality bound of DCT scaling: within a mean 1.25 levels of a full decode followed by the
// same resize (at 1x the DCT's own downscaling shows: means up to 2.9).
inline constexpr double kScaledPixelsPerOutput = 1.5;

struct DecodeLimits {
  std::uint64_t max_pixels = 100'000'000;  // declared width x height
  int max_scans = 500;                     // progressive scans (libjpeg-turbo's fuzzers use 500)
  WarningPolicy on_warning = WarningPolicy::kAccept;
};

struct ImageInfo {
  int width = 0, height = 0;
  int components = 0;   // in the file: 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK
  int scale_denom = 1;  // DCT scaling used by the last decode
  bool packed = false;  // it had a restart index (decode/restart_index.h)
  // Packed only: entropy-coded bytes of the image, and of the intervals the last decode read.
  std::uint64_t scan_bytes = 0, scan_bytes_read = 0;
};

class ImageDecoder {
 public:
  explicit ImageDecoder(DecodeLimits limits = {});
  ~ImageDecoder();
  ImageDecoder(const ImageDecoder&) = delete;
  ImageDecoder& operator=(const ImageDecoder&) = delete;

  // Decodes `jpeg` under `spec` with augmentation drawn from Rng(sample_seed) and writes
  // spec.size x spec.size packed RGB (HWC uint8) to `out`, which must hold that many bytes.
  DecodeStatus decode(std::span<const std::uint8_t> jpeg, const TransformSpec& spec,
                      std::uint64_t sample_seed, std::span<std::uint8_t> out);

  // Decodes the whole image at full size into packed RGB (references, tests, tools).
  DecodeStatus decode_full(std::span<const std::uint8_t> jpeg, std::vector<std::uint8_t>& rgb);

  // The header and scale of the last call.
  const ImageInfo& info() const { return info_; }

  // The libjpeg handle and its error hooks (defined in the .cc).
  struct State;

 private:
  DecodeStatus open(std::span<const std::uint8_t> jpeg);
  // Decodes the rows and columns of `rect` (in the coordinates of the whole image scaled by
  // 1/scale_denom) from the open stream, which holds `sub` of the whole image.
  DecodeStatus read_rows(SourceRect rect, int scale_denom, const SubImage& sub);
  // When `jpeg` is packed and the crop needs less than all of it, builds the sub-stream of
  // `rect` into substream_ and opens it instead; `sub` says which part of the image it holds.
  DecodeStatus open_packed(std::span<const std::uint8_t> jpeg, SourceRect rect, int scale_denom,
                           SubImage& sub, std::span<const std::uint8_t>& stream);
  DecodeStatus finish(std::span<const std::uint8_t> jpeg);

  std::unique_ptr<State> state_;
  DecodeLimits limits_;
  ImageInfo info_;
  Resampler resampler_;
  RestartIndex restart_index_;           // of the last packed JPEG
  std::vector<std::uint8_t> substream_;  // the crop's intervals of the last packed JPEG
  std::vector<std::uint8_t> region_;     // decoded rows, RGB (or CMYK converted in place)
  std::size_t region_stride_ = 0;
  int region_x0_ = 0, region_y0_ = 0;
  int region_w_ = 0, region_h_ = 0;
};

}  // namespace feedrate::decode
