// libjpeg encoder for restart intervals. libjpeg's errors go through the product's error manager
// (decode/jpeg_error.h): it longjmps back to compress(), which holds no C++ objects and leaves
// all C++ work to its caller.

#include "bench/datagen/jpeg_libjpeg.h"

#include <csetjmp>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "decode/jpeg_error.h"

namespace feedrate::datagen {
namespace {

// Everything libjpeg writes to, kept in the caller's frame rather than in compress(): locals of
// the function that calls setjmp have indeterminate values after the longjmp.
struct Compression {
  jpeg_compress_struct cinfo;
  decode::JpegErrors errors;
  unsigned char* buffer = nullptr;  // malloc'ed by libjpeg's memory destination
  unsigned long size = 0;
};

// Returns true on success; on failure c->errors.message holds libjpeg's text.
bool compress(const unsigned char* pixels, const JpegSpec& spec, Compression* c) {
  jpeg_compress_struct& cinfo = c->cinfo;
  cinfo.err = c->errors.install();
  if (setjmp(c->errors.jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &c->buffer, &c->size);
  cinfo.image_width = static_cast<JDIMENSION>(spec.width);
  cinfo.image_height = static_cast<JDIMENSION>(spec.height);
  switch (spec.color) {
    case ColorKind::kGray:
      cinfo.input_components = 1;
      cinfo.in_color_space = JCS_GRAYSCALE;
      break;
    case ColorKind::kRgb:
      cinfo.input_components = 3;
      cinfo.in_color_space = JCS_RGB;
      break;
    case ColorKind::kCmyk:
      cinfo.input_components = 4;
      cinfo.in_color_space = JCS_CMYK;
      break;
  }
  jpeg_set_defaults(&cinfo);
  // TurboJPEG stores CMYK as YCCK; do the same so both paths give the same kind of file.
  if (spec.color == ColorKind::kCmyk) jpeg_set_colorspace(&cinfo, JCS_YCCK);
  jpeg_set_quality(&cinfo, spec.quality, TRUE);
  cinfo.dct_method = JDCT_ISLOW;
  if (spec.color != ColorKind::kGray) {
    const int h = spec.subsampling == Subsampling::k444 ? 1 : 2;
    const int v = spec.subsampling == Subsampling::k420 ? 2 : 1;
    for (int i = 0; i < cinfo.num_components; ++i) {
      // Luma (and K, like TurboJPEG) at full resolution, the two chroma components subsampled.
      const bool full = i == 0 || i == 3;
      cinfo.comp_info[i].h_samp_factor = full ? h : 1;
      cinfo.comp_info[i].v_samp_factor = full ? v : 1;
    }
  }
  if (spec.progressive) jpeg_simple_progression(&cinfo);
  cinfo.restart_in_rows = spec.restart_interval_rows;

  jpeg_start_compress(&cinfo, TRUE);
  const std::size_t stride = static_cast<std::size_t>(spec.width) * cinfo.input_components;
  while (cinfo.next_scanline < cinfo.image_height) {
    // libjpeg's API is not const-correct; it only reads the rows.
    JSAMPROW row = const_cast<JSAMPROW>(pixels + cinfo.next_scanline * stride);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

}  // namespace

std::vector<unsigned char> encode_with_libjpeg(const unsigned char* pixels, const JpegSpec& spec) {
  Compression c;
  const bool ok = compress(pixels, spec, &c);
  const std::unique_ptr<unsigned char, void (*)(void*)> owned(c.buffer, std::free);
  if (!ok) throw std::runtime_error(std::string("libjpeg: ") + c.errors.message);
  return {c.buffer, c.buffer + c.size};
}

}  // namespace feedrate::datagen
