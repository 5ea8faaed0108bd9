// TIFF through libtiff, reading the first directory from memory (classic TIFF and BigTIFF).
// libtiff decodes every strip or tile (any compression it knows); the samples then become RGB
// by PIL's rules (decode/tiff_pixels.h) for gray, palette, RGB and CMYK, where libtiff's own RGBA
// conversion differs from PIL's (16-bit gray scaled instead of clipped, unassociated alpha
// premultiplied, associated alpha kept, CMYK rounded differently, no 12- or 32-bit samples).
// YCbCr, CIE L*a*b*, LogLuv and old-style JPEG go through libtiff's RGBA interface, as in PIL.
// Either way the Orientation tag is applied as Pillow does when it loads a TIFF.
//
// libtiff's errors and warnings go to a per-handle handler (never to stderr). libtiff reports
// some damage only there while its call returns success (a bad LZW code word): every call's
// recorded error makes the image corrupt. One allocation inside libtiff, and every strip or
// tile buffer here, is capped, so a strip that declares gigabytes is refused before allocation.
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "decode/format.h"
#include "decode/tiff_pixels.h"

namespace feedrate::decode {
namespace {

struct MemoryFile {
  std::span<const std::uint8_t> bytes;
  std::uint64_t position = 0;
  std::string first_error;
  bool short_read = false;  // a read asked for bytes past the end: the file is truncated
};

tmsize_t read_proc(thandle_t handle, void* buffer, tmsize_t size) {
  auto* file = static_cast<MemoryFile*>(handle);
  if (size < 0) return 0;
  const std::uint64_t left =
      file->position < file->bytes.size() ? file->bytes.size() - file->position : 0;
  const std::uint64_t n = std::min<std::uint64_t>(static_cast<std::uint64_t>(size), left);
  if (n < static_cast<std::uint64_t>(size)) file->short_read = true;
  if (n == 0) return 0;
  std::memcpy(buffer, file->bytes.data() + file->position, n);
  file->position += n;
  return static_cast<tmsize_t>(n);
}

tmsize_t write_proc(thandle_t, void*, tmsize_t) {
  return -1;
}

toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
  auto* file = static_cast<MemoryFile*>(handle);
  std::uint64_t base = 0;
  if (whence == SEEK_CUR) base = file->position;
  if (whence == SEEK_END) base = file->bytes.size();
  file->position = base + offset;
  return file->position;
}

int close_proc(thandle_t) {
  return 0;
}

toff_t size_proc(thandle_t handle) {
  return static_cast<MemoryFile*>(handle)->bytes.size();
}

int map_proc(thandle_t, tdata_t*, toff_t*) {
  return 0;
}

void unmap_proc(thandle_t, tdata_t, toff_t) {}

int on_error(TIFF*, void* user_data, const char* module, const char* format, va_list args) {
  auto* file = static_cast<MemoryFile*>(user_data);
  if (file->first_error.empty()) {
    char message[256];
    std::vsnprintf(message, sizeof(message), format, args);
    file->first_error = std::string(module != nullptr ? module : "libtiff") + ": " + message;
  }
  return 1;
}

int on_warning(TIFF*, void*, const char*, const char*, va_list) {
  return 1;
}

struct TiffClose {
  void operator()(TIFF* tif) const { TIFFClose(tif); }
};
struct OptionsFree {
  void operator()(TIFFOpenOptions* options) const { TIFFOpenOptionsFree(options); }
};

// One open directory and the decoder's view of it.
class TiffReader {
 public:
  TiffReader(std::span<const std::uint8_t> bytes, const DecodeLimits& limits)
      : file_{bytes, 0, {}, false}, limits_(limits) {}

  DecodeStatus decode(RgbImage& out);

 private:
  DecodeStatus failure(DecodeErrc code, const std::string& what) const {
    return {code,
            "TIFF: " + what + (file_.first_error.empty() ? "" : " (" + file_.first_error + ")")};
  }
  // After a libtiff call that succeeded: corrupt if libtiff recorded an error all the same.
  DecodeStatus checked(const char* what) const {
    if (file_.first_error.empty()) return {};
    return failure(file_.short_read ? DecodeErrc::kTruncated : DecodeErrc::kCorrupt, what);
  }
  std::uint64_t buffer_cap() const { return limits_.max_pixels * 8 + 65536; }
  DecodeStatus read_layout();
  DecodeStatus read_samples(std::vector<std::uint8_t>& stored);
  DecodeStatus read_rgba(std::vector<std::uint8_t>& stored, std::vector<std::uint8_t>& raster);
  DecodeStatus read_rgba_by_strips(std::uint32_t* raster);
  void flip_like_pillow_tiles(std::uint32_t* raster) const;

  MemoryFile file_;
  DecodeLimits limits_;
  std::unique_ptr<TIFF, TiffClose> tif_;
  std::uint32_t width_ = 0, height_ = 0;
  int orientation_ = 1;
  std::uint16_t compression_ = COMPRESSION_NONE;
  bool separate_ = false;
  tiff::SampleLayout layout_;
  std::string sample_path_refusal_;  // why convert_row cannot take this layout, if it cannot
};

DecodeStatus TiffReader::read_layout() {
  TIFF* tif = tif_.get();
  if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width_) ||
      !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height_)) {
    return failure(DecodeErrc::kCorrupt, "no image size");
  }
  if (DecodeStatus status = check_declared_size(ImageFormat::kTiff, width_, height_, limits_);
      !status.ok()) {
    return status;
  }
  std::uint16_t photometric = 0, bits = 1, samples = 1, format = SAMPLEFORMAT_UINT,
                planar = PLANARCONFIG_CONTIG, orientation = ORIENTATION_TOPLEFT, compression = 1;
  const bool has_photometric = TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
  std::uint16_t extra_count = 0;
  std::uint16_t* extra = nullptr;
  TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
  orientation_ = orientation;
  compression_ = compression;
  separate_ = planar == PLANARCONFIG_SEPARATE && samples > 1;
  layout_.photometric = photometric;
  layout_.bits = bits;
  layout_.samples = samples;
  layout_.format = format == SAMPLEFORMAT_INT      ? tiff::SampleFormat::kInt
                   : format == SAMPLEFORMAT_IEEEFP ? tiff::SampleFormat::kFloat
                                                   : tiff::SampleFormat::kUint;
  layout_.associated_alpha = extra_count > 0 && extra[0] == EXTRASAMPLE_ASSOCALPHA;
  if (photometric == PHOTOMETRIC_PALETTE) {
    std::uint16_t *red = nullptr, *green = nullptr, *blue = nullptr;
    if (bits <= 8 && TIFFGetField(tif, TIFFTAG_COLORMAP, &red, &green, &blue)) {
      layout_.palette[0] = red;
      layout_.palette[1] = green;
      layout_.palette[2] = blue;
    }
  }
  if (!has_photometric) {
    sample_path_refusal_ = "no photometric interpretation";
  } else if (samples > 8) {
    sample_path_refusal_ = std::to_string(samples) + " samples per pixel";
  } else if (compression == COMPRESSION_OJPEG ||
             (format != SAMPLEFORMAT_UINT && format != SAMPLEFORMAT_INT &&
              format != SAMPLEFORMAT_IEEEFP)) {
    sample_path_refusal_ = "compression or sample format for libtiff's RGBA interface";
  } else {
    sample_path_refusal_ = tiff::unsupported_reason(layout_);
  }
  return checked("cannot read the directory");
}

// Every strip or tile decoded by libtiff and converted row by row into `stored` (width x height
// packed RGB in file order). With separate planes each block is read once per plane.
DecodeStatus TiffReader::read_samples(std::vector<std::uint8_t>& stored) {
  TIFF* tif = tif_.get();
  const bool tiled = TIFFIsTiled(tif);
  std::uint32_t block_width = width_, block_height = height_;
  if (tiled) {
    if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &block_width) ||
        !TIFFGetField(tif, TIFFTAG_TILELENGTH, &block_height) || block_width == 0 ||
        block_height == 0) {
      return failure(DecodeErrc::kCorrupt, "tiles without a size");
    }
  } else {
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &block_height);
    block_height = std::clamp<std::uint32_t>(block_height, 1, height_);
  }
  const int planes = separate_ ? layout_.samples : 1;
  const std::size_t block_row = tiff::row_bytes(layout_, block_width, separate_);
  const std::uint64_t block_bytes = static_cast<std::uint64_t>(block_row) * block_height;
  if (block_bytes * planes > buffer_cap()) {
    return {DecodeErrc::kTooLarge,
            "TIFF: a strip or tile of " + std::to_string(block_bytes) + " bytes exceeds the limit"};
  }
  std::vector<std::vector<std::uint8_t>> buffers(planes, std::vector<std::uint8_t>(block_bytes));
  stored.resize(static_cast<std::size_t>(width_) * height_ * 3);
  const std::uint32_t across = tiled ? (width_ + block_width - 1) / block_width : 1;
  const std::uint32_t down = (height_ + block_height - 1) / block_height;
  const std::uint32_t per_plane = across * down;
  std::vector<const std::uint8_t*> rows(planes);
  for (std::uint32_t by = 0; by < down; ++by) {
    for (std::uint32_t bx = 0; bx < across; ++bx) {
      for (int s = 0; s < planes; ++s) {
        const std::uint32_t block = static_cast<std::uint32_t>(s) * per_plane + by * across + bx;
        const tmsize_t got = tiled
                                 ? TIFFReadEncodedTile(tif, block, buffers[s].data(), block_bytes)
                                 : TIFFReadEncodedStrip(tif, block, buffers[s].data(), block_bytes);
        if (got < 0) {
          return failure(
              file_.short_read ? DecodeErrc::kTruncated : DecodeErrc::kCorrupt,
              "cannot decode " + std::string(tiled ? "tile " : "strip ") + std::to_string(block));
        }
        if (DecodeStatus status = checked("damaged image data"); !status.ok()) return status;
        // A short last strip holds only the rows left; a block shorter than that is damage
        // that libtiff reads as success: the missing rows would be left over from before.
        const std::uint32_t rows_left = std::min(block_height, height_ - by * block_height);
        if (static_cast<std::uint64_t>(got) < static_cast<std::uint64_t>(block_row) * rows_left) {
          return failure(DecodeErrc::kTruncated,
                         "strip or tile " + std::to_string(block) + " decodes to too few bytes");
        }
      }
      const std::uint32_t x0 = bx * block_width, y0 = by * block_height;
      const std::uint32_t columns = std::min(block_width, width_ - x0);
      const std::uint32_t lines = std::min(block_height, height_ - y0);
      for (std::uint32_t y = 0; y < lines; ++y) {
        for (int s = 0; s < planes; ++s) rows[s] = buffers[s].data() + y * block_row;
        tiff::convert_row(layout_, rows, columns,
                          &stored[(static_cast<std::size_t>(y0 + y) * width_ + x0) * 3]);
      }
    }
  }
  return {};
}

// Pillow 9.4 decodes YCbCr that is not JPEG-compressed in contiguous strips (TiffDecode.c's
// _decodeStripYCbCr) through libtiff's RGBA interface asked for the top-left orientation, one
// strip of rows at a time, and then transposes by the Orientation tag as for any TIFF: libtiff's
// flips are applied within each strip and then Pillow's on top. Reading the same way gives the
// same pixels.
DecodeStatus TiffReader::read_rgba_by_strips(std::uint32_t* raster) {
  TIFFRGBAImage image;
  char reason[1024] = {};
  if (!TIFFRGBAImageBegin(&image, tif_.get(), 0, reason)) {
    return failure(DecodeErrc::kCorrupt, std::string("cannot start decoding: ") + reason);
  }
  image.req_orientation = ORIENTATION_TOPLEFT;
  image.col_offset = 0;
  std::uint32_t rows_per_strip = height_;
  TIFFGetFieldDefaulted(tif_.get(), TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
  rows_per_strip = std::clamp<std::uint32_t>(rows_per_strip, 1, height_);
  bool ok = true;
  for (std::uint32_t y = 0; y < height_ && ok; y += rows_per_strip) {
    image.row_offset = static_cast<int>(y);
    ok = TIFFRGBAImageGet(&image, raster + static_cast<std::size_t>(y) * width_, width_,
                          std::min(rows_per_strip, height_ - y)) != 0;
  }
  TIFFRGBAImageEnd(&image);
  if (!ok) {
    return failure(file_.short_read ? DecodeErrc::kTruncated : DecodeErrc::kCorrupt,
                   "cannot decode the image");
  }
  return {};
}

// The same for tiles (Pillow's _decodeTile through libtiff's tile RGBA reader), as measured
// against Pillow 9.4: orientations that flip horizontally mirror whole rows, those that flip
// vertically reverse the rows within each band of tiles; Pillow's transposition follows.
void TiffReader::flip_like_pillow_tiles(std::uint32_t* raster) const {
  std::uint32_t tile_height = height_;
  TIFFGetField(tif_.get(), TIFFTAG_TILELENGTH, &tile_height);
  tile_height = std::clamp<std::uint32_t>(tile_height, 1, height_);
  if (orientation_ == 2 || orientation_ == 3 || orientation_ == 6 || orientation_ == 7) {
    for (std::uint32_t y = 0; y < height_; ++y) {
      std::reverse(raster + static_cast<std::size_t>(y) * width_,
                   raster + static_cast<std::size_t>(y + 1) * width_);
    }
  }
  if (orientation_ == 3 || orientation_ == 4 || orientation_ == 7 || orientation_ == 8) {
    for (std::uint32_t band = 0; band < height_; band += tile_height) {
      const std::uint32_t rows = std::min(tile_height, height_ - band);
      for (std::uint32_t r = 0; r < rows / 2; ++r) {
        std::swap_ranges(raster + static_cast<std::size_t>(band + r) * width_,
                         raster + static_cast<std::size_t>(band + r + 1) * width_,
                         raster + static_cast<std::size_t>(band + rows - 1 - r) * width_);
      }
    }
  }
}

// libtiff's RGBA interface; alpha dropped. Asked for the stored row order (each orientation is
// its own requested orientation, so libtiff flips nothing), except where Pillow asks for the
// top-left one (read_rgba_by_strips).
DecodeStatus TiffReader::read_rgba(std::vector<std::uint8_t>& stored,
                                   std::vector<std::uint8_t>& raster_bytes) {
  char reason[1024] = {};
  if (!TIFFRGBAImageOK(tif_.get(), reason)) {
    return {DecodeErrc::kUnsupported,
            std::string("TIFF: ") + reason + " (" + sample_path_refusal_ + ")"};
  }
  const std::size_t pixels = static_cast<std::size_t>(width_) * height_;
  raster_bytes.resize(pixels * 4);
  auto* raster = reinterpret_cast<std::uint32_t*>(raster_bytes.data());
  const bool like_pillow_ycbcr =
      layout_.photometric == PHOTOMETRIC_YCBCR && (compression_ != COMPRESSION_JPEG || separate_);
  if (like_pillow_ycbcr && !TIFFIsTiled(tif_.get())) {
    if (DecodeStatus status = read_rgba_by_strips(raster); !status.ok()) return status;
  } else {
    const int requested =
        orientation_ >= 1 && orientation_ <= 8 ? orientation_ : ORIENTATION_TOPLEFT;
    if (!TIFFReadRGBAImageOriented(tif_.get(), width_, height_, raster, requested, 1)) {
      return failure(file_.short_read ? DecodeErrc::kTruncated : DecodeErrc::kCorrupt,
                     "cannot decode the image");
    }
    if (like_pillow_ycbcr) flip_like_pillow_tiles(raster);
  }
  if (DecodeStatus status = checked("damaged image data"); !status.ok()) return status;
  stored.resize(pixels * 3);
  for (std::size_t i = 0; i < pixels; ++i) {
    stored[3 * i] = static_cast<std::uint8_t>(TIFFGetR(raster[i]));
    stored[3 * i + 1] = static_cast<std::uint8_t>(TIFFGetG(raster[i]));
    stored[3 * i + 2] = static_cast<std::uint8_t>(TIFFGetB(raster[i]));
  }
  return {};
}

DecodeStatus TiffReader::decode(RgbImage& out) {
  std::unique_ptr<TIFFOpenOptions, OptionsFree> options(TIFFOpenOptionsAlloc());
  if (!options) return {DecodeErrc::kCorrupt, "TIFF: cannot allocate libtiff options"};
  TIFFOpenOptionsSetErrorHandlerExtR(options.get(), on_error, &file_);
  TIFFOpenOptionsSetWarningHandlerExtR(options.get(), on_warning, &file_);
  // The largest buffer libtiff itself may allocate at once: an RGBA image at the pixel limit.
  TIFFOpenOptionsSetMaxSingleMemAlloc(
      options.get(), static_cast<tmsize_t>(std::min<std::uint64_t>(limits_.max_pixels * 4 + 65536,
                                                                   std::uint64_t{1} << 40)));
  tif_.reset(TIFFClientOpenExt("memory", "rm", &file_, read_proc, write_proc, seek_proc, close_proc,
                               size_proc, map_proc, unmap_proc, options.get()));
  if (!tif_) return failure(DecodeErrc::kCorrupt, "cannot read the header");
  if (DecodeStatus status = read_layout(); !status.ok()) return status;
  // `raw` holds the stored-order RGB; the RGBA path uses `pixels` for its raster first.
  DecodeStatus status =
      sample_path_refusal_.empty() ? read_samples(out.raw) : read_rgba(out.raw, out.pixels);
  if (!status.ok()) return status;
  const bool swap = tiff::orientation_swaps_sides(orientation_);
  out.width = static_cast<int>(swap ? height_ : width_);
  out.height = static_cast<int>(swap ? width_ : height_);
  if (orientation_ < 2 || orientation_ > 8) {
    std::swap(out.pixels, out.raw);  // stored order is the image's: no copy
    return {};
  }
  out.pixels.resize(static_cast<std::size_t>(width_) * height_ * 3);
  tiff::apply_orientation(orientation_, out.raw.data(), width_, height_, out.pixels.data());
  return {};
}

}  // namespace

DecodeStatus decode_tiff_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                              RgbImage& out) {
  return TiffReader(bytes, limits).decode(out);
}

}  // namespace feedrate::decode
