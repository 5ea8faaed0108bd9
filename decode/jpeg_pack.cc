#include "decode/jpeg_pack.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "decode/jpeg_error.h"

namespace feedrate::decode {

// The error manager's rules (decode/jpeg_error.h) hold for every guarded call below. The
// compressor's output buffer lives here, not in a local, so that the jump cannot lose it.
struct JpegPacker::State {
  jpeg_decompress_struct src{};
  jpeg_compress_struct dst{};
  JpegErrors errors;
  unsigned char* buffer = nullptr;
  unsigned long buffer_size = 0;
};

namespace {

// The restart interval for the single scan libjpeg writes with dst's parameters, whose MCU is
// one block when there is one component, else max_h_samp_factor x max_v_samp_factor blocks.
unsigned restart_interval_of(const jpeg_compress_struct& dst, int target) {
  int h_max = 1, v_max = 1;
  for (int c = 0; c < dst.num_components; ++c) {
    h_max = std::max(h_max, dst.comp_info[c].h_samp_factor);
    v_max = std::max(v_max, dst.comp_info[c].v_samp_factor);
  }
  const int mcu_width = dst.num_components == 1 ? 8 : 8 * h_max;
  const int mcu_height = dst.num_components == 1 ? 8 : 8 * v_max;
  const int columns = static_cast<int>((dst.image_width + mcu_width - 1) / mcu_width);
  const int rows = static_cast<int>((dst.image_height + mcu_height - 1) / mcu_height);
  return static_cast<unsigned>(choose_mcus_per_interval(columns, rows, target));
}

void reset(JpegPacker::State& s) {
  s.errors.reset();
  std::free(s.buffer);
  s.buffer = nullptr;
  s.buffer_size = 0;
}

DecodeStatus check_jpeg(std::span<const std::uint8_t> jpeg) {
  if (jpeg.empty()) return {DecodeErrc::kEmpty, "nothing to decode (0 bytes)"};
  if (jpeg.size() < 2 || jpeg[0] != 0xFF || jpeg[1] != 0xD8) {
    return {DecodeErrc::kNotJpeg, "not a JPEG (no SOI marker)"};
  }
  return {};
}

}  // namespace

JpegPacker::JpegPacker(DecodeLimits limits, int mcus_per_interval)
    : state_(new State), limits_(limits), decoder_(limits), mcus_per_interval_(mcus_per_interval) {
  State& s = *state_;
  s.src.err = s.errors.install();
  s.dst.err = &s.errors.manager;
  jpeg_create_decompress(&s.src);
  jpeg_create_compress(&s.dst);
}

JpegPacker::~JpegPacker() {
  jpeg_destroy_compress(&state_->dst);
  jpeg_destroy_decompress(&state_->src);
  std::free(state_->buffer);
}

DecodeStatus JpegPacker::start(std::span<const std::uint8_t> jpeg) {
  resized_ = false;
  source_width_ = source_height_ = 0;
  reset(*state_);
  return check_jpeg(jpeg);
}

DecodeStatus JpegPacker::pack(std::span<const std::uint8_t> jpeg, std::vector<std::uint8_t>& out) {
  if (DecodeStatus status = start(jpeg); !status.ok()) return status;
  State& s = *state_;
  if (setjmp(s.errors.jump)) {
    jpeg_abort_compress(&s.dst);
    jpeg_abort_decompress(&s.src);
    return {s.errors.saw_eof ? DecodeErrc::kTruncated : DecodeErrc::kCorrupt, s.errors.message};
  }
  jpeg_mem_src(&s.src, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_read_header(&s.src, TRUE);
  source_width_ = static_cast<int>(s.src.image_width);
  source_height_ = static_cast<int>(s.src.image_height);
  if (static_cast<std::uint64_t>(s.src.image_width) * s.src.image_height > limits_.max_pixels) {
    jpeg_abort_decompress(&s.src);
    return {DecodeErrc::kTooLarge, "declared size " + std::to_string(source_width_) + "x" +
                                       std::to_string(source_height_) + " exceeds the limit of " +
                                       std::to_string(limits_.max_pixels) + " pixels"};
  }
  jvirt_barray_ptr* coefficients = jpeg_read_coefficients(&s.src);
  jpeg_copy_critical_parameters(&s.src, &s.dst);
  // copy_critical_parameters writes an Adobe marker for every CMYK file; without one in the
  // source, readers such as PIL would read the inks inverted.
  if (s.src.jpeg_color_space == JCS_CMYK) s.dst.write_Adobe_marker = s.src.saw_Adobe_marker;
  s.dst.optimize_coding = TRUE;
  s.dst.restart_interval = restart_interval_of(s.dst, mcus_per_interval_);
  jpeg_mem_dest(&s.dst, &s.buffer, &s.buffer_size);
  jpeg_write_coefficients(&s.dst, coefficients);
  jpeg_finish_compress(&s.dst);
  jpeg_finish_decompress(&s.src);
  if (s.errors.saw_eof)
    return {DecodeErrc::kTruncated,
            std::string("data ends early (") + s.errors.first_warning + ")"};
  if (s.errors.warnings > 0) return {DecodeErrc::kWarning, s.errors.first_warning};
  const std::span<const std::uint8_t> written(s.buffer, s.buffer_size);
  return add_restart_index(written, out);
}

DecodeStatus JpegPacker::encode(const std::uint8_t* rgb, int width, int height, int quality) {
  State& s = *state_;
  reset(s);
  if (setjmp(s.errors.jump)) {
    jpeg_abort_compress(&s.dst);
    return {DecodeErrc::kCorrupt, s.errors.message};
  }
  s.dst.image_width = static_cast<JDIMENSION>(width);
  s.dst.image_height = static_cast<JDIMENSION>(height);
  s.dst.input_components = 3;
  s.dst.in_color_space = JCS_RGB;
  jpeg_set_defaults(&s.dst);
  jpeg_set_quality(&s.dst, quality, TRUE);
  s.dst.dct_method = JDCT_ISLOW;
  s.dst.optimize_coding = TRUE;
  s.dst.restart_interval = restart_interval_of(s.dst, mcus_per_interval_);
  jpeg_mem_dest(&s.dst, &s.buffer, &s.buffer_size);
  jpeg_start_compress(&s.dst, TRUE);
  const std::size_t stride = static_cast<std::size_t>(width) * 3;
  while (s.dst.next_scanline < s.dst.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(rgb + s.dst.next_scanline * stride);
    jpeg_write_scanlines(&s.dst, &row, 1);
  }
  jpeg_finish_compress(&s.dst);
  return {};
}

DecodeStatus JpegPacker::pack_resized(std::span<const std::uint8_t> jpeg, int max_side, int quality,
                                      std::vector<std::uint8_t>& out) {
  if (DecodeStatus status = start(jpeg); !status.ok()) return status;
  State& s = *state_;
  if (setjmp(s.errors.jump)) {
    jpeg_abort_decompress(&s.src);
    return {s.errors.saw_eof ? DecodeErrc::kTruncated : DecodeErrc::kCorrupt, s.errors.message};
  }
  jpeg_mem_src(&s.src, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_read_header(&s.src, TRUE);
  const int width = static_cast<int>(s.src.image_width);
  const int height = static_cast<int>(s.src.image_height);
  jpeg_abort_decompress(&s.src);
  if (std::max(width, height) <= max_side) return pack(jpeg, out);
  if (DecodeStatus status = decoder_.decode_full(jpeg, pixels_); !status.ok()) return status;
  source_width_ = width;
  source_height_ = height;
  const double scale = static_cast<double>(max_side) / std::max(width, height);
  ResizePlan plan;
  plan.box_w = width;
  plan.box_h = height;
  plan.out_w = plan.win_w = std::max(1, static_cast<int>(std::lround(width * scale)));
  plan.out_h = plan.win_h = std::max(1, static_cast<int>(std::lround(height * scale)));
  plan.clip_x1 = width;
  plan.clip_y1 = height;
  resampler_.prepare(plan);
  resized_pixels_.resize(static_cast<std::size_t>(plan.out_w) * plan.out_h * 3);
  resampler_.run(pixels_.data(), static_cast<std::size_t>(width) * 3, 0, 0, resized_pixels_.data());
  if (DecodeStatus status = encode(resized_pixels_.data(), plan.out_w, plan.out_h, quality);
      !status.ok()) {
    return status;
  }
  resized_ = true;
  const std::span<const std::uint8_t> written(s.buffer, s.buffer_size);
  return add_restart_index(written, out);
}

bool store_unchanged(const DecodeStatus& failure) {
  return failure.code == DecodeErrc::kWarning || failure.code == DecodeErrc::kUnsupported;
}

}  // namespace feedrate::decode
