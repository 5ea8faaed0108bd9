// The packer's side of packed JPEGs (decode/restart_index.h): turns a JPEG into a packed one.
//
// pack() is lossless: libjpeg reads the DCT coefficients and writes them again
// (jpeg_read_coefficients / jpeg_write_coefficients with copy_critical_parameters), with no
// re-quantisation and with a restart marker every K MCUs (choose_mcus_per_interval). A
// progressive source becomes baseline (the same coefficients, so the same pixels: a decoder
// reads the whole progressive image before it outputs rows, and block smoothing applies only
// to coefficients not yet complete). Huffman tables are optimised for the image. Markers other
// than those libjpeg writes itself (JFIF, Adobe) are dropped: EXIF, ICC and comments do not
// change a decode's pixels.
//
// pack_resized() changes the data: when the longer side exceeds max_side it decodes the image,
// resamples it with the decode path's antialiased filter (decode/resize.h) so that the longer
// side is max_side, and encodes it again at `quality` (4:2:0, accurate DCT), with restart
// markers and index; a smaller image is packed losslessly.
//
// Thread-safety: a JpegPacker holds libjpeg handles and scratch; use one per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "decode/image_decoder.h"
#include "decode/resize.h"
#include "decode/restart_index.h"
#include "decode/status.h"

namespace feedrate::decode {

class JpegPacker {
 public:
  // `mcus_per_interval` is the K aimed for (choose_mcus_per_interval).
  explicit JpegPacker(DecodeLimits limits = {}, int mcus_per_interval = kTargetMcusPerInterval);
  ~JpegPacker();
  JpegPacker(const JpegPacker&) = delete;
  JpegPacker& operator=(const JpegPacker&) = delete;

  // Writes the packed form of `jpeg` to `out`. A JPEG on which libjpeg warns (corrupt but
  // decodable data) fails with kWarning: a caller may store it unchanged.
  DecodeStatus pack(std::span<const std::uint8_t> jpeg, std::vector<std::uint8_t>& out);

  // As pack(), first resampling to a longer side of at most `max_side` (>= 1) and re-encoding at
  // `quality` (1-100) when the image is larger.
  DecodeStatus pack_resized(std::span<const std::uint8_t> jpeg, int max_side, int quality,
                            std::vector<std::uint8_t>& out);

  // The source's size, and whether the last call resampled it.
  int source_width() const { return source_width_; }
  int source_height() const { return source_height_; }
  bool resized() const { return resized_; }

  struct State;  // libjpeg handles and error hooks (defined in the .cc)

 private:
  // Forgets the last call's results and checks that `jpeg` starts like a JPEG.
  DecodeStatus start(std::span<const std::uint8_t> jpeg);
  DecodeStatus encode(const std::uint8_t* rgb, int width, int height, int quality);

  std::unique_ptr<State> state_;
  DecodeLimits limits_;
  ImageDecoder decoder_;
  Resampler resampler_;
  std::vector<std::uint8_t> pixels_, resized_pixels_;
  int mcus_per_interval_;
  int source_width_ = 0, source_height_ = 0;
  bool resized_ = false;
};

// Whether a failure of pack() or pack_resized() leaves the JPEG to be stored as it is: libjpeg
// recovers corrupt data in it (kWarning), or its index would not fit one segment (kUnsupported).
// The decoder then reads it the ordinary way. Any other failure is a bad image.
bool store_unchanged(const DecodeStatus& failure);

}  // namespace feedrate::decode
