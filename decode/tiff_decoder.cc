// TIFF through libtiff, reading the first directory from memory with TIFFReadRGBAImage (every
// photometric, compression and bit depth libtiff converts to RGBA). libtiff's errors and warnings
// go to a per-handle handler (never to stderr), and one allocation inside libtiff is capped, so
// a strip or tile that declares gigabytes is refused before it is allocated.
// Known difference from PIL: libtiff premultiplies unassociated alpha; PIL keeps the colours.
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "decode/format.h"

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

}  // namespace

DecodeStatus decode_tiff_full(std::span<const std::uint8_t> bytes, const DecodeLimits& limits,
                              RgbImage& out) {
  MemoryFile file{bytes, 0, {}, false};
  std::unique_ptr<TIFFOpenOptions, OptionsFree> options(TIFFOpenOptionsAlloc());
  if (!options) return {DecodeErrc::kCorrupt, "TIFF: cannot allocate libtiff options"};
  TIFFOpenOptionsSetErrorHandlerExtR(options.get(), on_error, &file);
  TIFFOpenOptionsSetWarningHandlerExtR(options.get(), on_warning, &file);
  // The largest buffer libtiff itself may allocate at once: an RGBA image at the pixel limit.
  TIFFOpenOptionsSetMaxSingleMemAlloc(
      options.get(), static_cast<tmsize_t>(std::min<std::uint64_t>(limits.max_pixels * 4 + 65536,
                                                                   std::uint64_t{1} << 40)));
  std::unique_ptr<TIFF, TiffClose> tif(
      TIFFClientOpenExt("memory", "rm", &file, read_proc, write_proc, seek_proc, close_proc,
                        size_proc, map_proc, unmap_proc, options.get()));
  auto failure = [&](DecodeErrc code, const char* what) {
    return DecodeStatus{code, std::string("TIFF: ") + what +
                                  (file.first_error.empty() ? "" : " (" + file.first_error + ")")};
  };
  if (!tif) return failure(DecodeErrc::kCorrupt, "cannot read the header");
  std::uint32_t width = 0, height = 0;
  if (!TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &width) ||
      !TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &height)) {
    return failure(DecodeErrc::kCorrupt, "no image size");
  }
  if (DecodeStatus status = check_declared_size(ImageFormat::kTiff, width, height, limits);
      !status.ok()) {
    return status;
  }
  char reason[1024] = {};
  if (!TIFFRGBAImageOK(tif.get(), reason)) {
    return {DecodeErrc::kUnsupported, std::string("TIFF: ") + reason};
  }
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  out.width = static_cast<int>(width);
  out.height = static_cast<int>(height);
  out.raw.resize(pixels * 4);
  auto* raster = reinterpret_cast<std::uint32_t*>(out.raw.data());
  if (!TIFFReadRGBAImageOriented(tif.get(), width, height, raster, ORIENTATION_TOPLEFT, 1)) {
    return failure(file.short_read ? DecodeErrc::kTruncated : DecodeErrc::kCorrupt,
                   "cannot decode the image");
  }
  out.pixels.resize(pixels * 3);
  for (std::size_t i = 0; i < pixels; ++i) {
    out.pixels[3 * i] = static_cast<std::uint8_t>(TIFFGetR(raster[i]));
    out.pixels[3 * i + 1] = static_cast<std::uint8_t>(TIFFGetG(raster[i]));
    out.pixels[3 * i + 2] = static_cast<std::uint8_t>(TIFFGetB(raster[i]));
  }
  return {};
}

}  // namespace feedrate::decode
