#include "decode/image_decoder.h"

#include <csetjmp>
#include <cstdio>
// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "decode/jpeg_error.h"

namespace feedrate::decode {

const char* errc_name(DecodeErrc code) {
  switch (code) {
    case DecodeErrc::kOk:
      return "ok";
    case DecodeErrc::kEmpty:
      return "empty file";
    case DecodeErrc::kNotJpeg:
      return "not a JPEG";
    case DecodeErrc::kNotImage:
      return "not an image";
    case DecodeErrc::kUnsupported:
      return "unsupported image variant";
    case DecodeErrc::kCorrupt:
      return "corrupt image";
    case DecodeErrc::kTruncated:
      return "truncated image";
    case DecodeErrc::kTooLarge:
      return "image too large";
    case DecodeErrc::kTooManyScans:
      return "too many progressive scans";
    case DecodeErrc::kWarning:
      return "corrupt JPEG data (warning)";
  }
  return "unknown";
}

const char* warning_policy_name(WarningPolicy policy) {
  return policy == WarningPolicy::kAccept ? "accept" : "reject";
}

// The error manager's rules (decode/jpeg_error.h) hold for every guarded call below.
struct ImageDecoder::State {
  jpeg_decompress_struct cinfo{};
  JpegErrors errors;
  jpeg_progress_mgr progress{};
  DecodeErrc fatal = DecodeErrc::kCorrupt;
  int max_scans = 0;
};

namespace {

ImageDecoder::State* state_of(j_common_ptr cinfo) {
  return static_cast<ImageDecoder::State*>(cinfo->client_data);
}

void on_progress(j_common_ptr cinfo) {
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  ImageDecoder::State* state = state_of(cinfo);
  if (d->is_decompressor && d->input_scan_number > state->max_scans) {
    state->fatal = DecodeErrc::kTooManyScans;
    char text[64];
    std::snprintf(text, sizeof(text), "more than %d progressive scans", state->max_scans);
    state->errors.fail(text);
  }
}

// PIL's CMYK -> RGB for Adobe (inverted) CMYK, which is what libjpeg returns for CMYK and YCCK
// files: R = C' * K' / 255 with the stored (inverted) values.
void cmyk_to_rgb_in_place(std::uint8_t* row, int width) {
  for (int x = 0; x < width; ++x) {
    const unsigned k = row[4 * x + 3];
    const unsigned c = row[4 * x], m = row[4 * x + 1], y = row[4 * x + 2];
    row[3 * x] = static_cast<std::uint8_t>((c * k + 127) / 255);
    row[3 * x + 1] = static_cast<std::uint8_t>((m * k + 127) / 255);
    row[3 * x + 2] = static_cast<std::uint8_t>((y * k + 127) / 255);
  }
}

// True when the bytes the decoder has not consumed contain the EOI marker. Used when decoding
// stops before the last row: a truncated file lacks the marker.
bool has_end_marker(const JOCTET* rest, std::size_t length) {
  for (std::size_t i = length; i >= 2; --i) {
    if (rest[i - 2] == 0xFF && rest[i - 1] == 0xD9) return true;
  }
  return false;
}

// Cheapest DCT scale that still leaves kScaledPixelsPerOutput times as many pixels per side as
// the resized box has: among the candidates the smallest is the cheapest (the resize reads fewer
// pixels, and the decode costs no more).
int pick_scale_denom(const ResizePlan& plan, int width, int height) {
  for (int denom : kDctScaleDenominators) {
    const double sw = std::ceil(static_cast<double>(width) / denom) / width;
    const double sh = std::ceil(static_cast<double>(height) / denom) / height;
    if (plan.box_w * sw >= kScaledPixelsPerOutput * plan.out_w &&
        plan.box_h * sh >= kScaledPixelsPerOutput * plan.out_h) {
      return denom;
    }
  }
  return 1;
}

}  // namespace

ImageDecoder::ImageDecoder(DecodeLimits limits) : state_(new State), limits_(limits) {
  State& s = *state_;
  s.cinfo.err = s.errors.install();
  s.cinfo.client_data = &s;
  s.progress.progress_monitor = on_progress;
  s.max_scans = limits_.max_scans;
  jpeg_create_decompress(&s.cinfo);
}

ImageDecoder::~ImageDecoder() {
  jpeg_destroy_decompress(&state_->cinfo);
}

DecodeStatus ImageDecoder::open(std::span<const std::uint8_t> jpeg) {
  info_ = {};
  if (jpeg.empty()) return {DecodeErrc::kEmpty, "nothing to decode (0 bytes)"};
  if (jpeg.size() < 2 || jpeg[0] != 0xFF || jpeg[1] != 0xD8) {
    char message[96];
    std::snprintf(message, sizeof(message), "not a JPEG (no SOI marker: starts with %02x %02x)",
                  jpeg[0], jpeg.size() > 1 ? jpeg[1] : 0);
    return {DecodeErrc::kNotJpeg, message};
  }
  State& s = *state_;
  s.fatal = DecodeErrc::kCorrupt;
  s.errors.reset();
  if (setjmp(s.errors.jump)) {
    jpeg_abort_decompress(&s.cinfo);
    // libjpeg's fatal errors on a file cut inside its header ("no SOS marker", "bogus marker
    // length") follow the warning that the data ran out: report the cause.
    if (s.fatal == DecodeErrc::kCorrupt && s.errors.saw_eof) {
      return {DecodeErrc::kTruncated,
              std::string("data ends inside the header (") + s.errors.message + ")"};
    }
    return {s.fatal, s.errors.message};
  }
  jpeg_mem_src(&s.cinfo, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  s.cinfo.progress = &s.progress;
  jpeg_read_header(&s.cinfo, TRUE);
  info_.width = static_cast<int>(s.cinfo.image_width);
  info_.height = static_cast<int>(s.cinfo.image_height);
  info_.components = s.cinfo.num_components;
  const std::uint64_t pixels =
      static_cast<std::uint64_t>(s.cinfo.image_width) * s.cinfo.image_height;
  if (pixels > limits_.max_pixels) {
    jpeg_abort_decompress(&s.cinfo);
    return {DecodeErrc::kTooLarge, "declared size " + std::to_string(info_.width) + "x" +
                                       std::to_string(info_.height) + " exceeds the limit of " +
                                       std::to_string(limits_.max_pixels) + " pixels"};
  }
  if (s.errors.saw_eof) {
    jpeg_abort_decompress(&s.cinfo);
    return {DecodeErrc::kTruncated, "data ends inside the header"};
  }
  const bool cmyk = s.cinfo.jpeg_color_space == JCS_CMYK || s.cinfo.jpeg_color_space == JCS_YCCK;
  s.cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  s.cinfo.dct_method = JDCT_ISLOW;  // PIL's default, so pixels match torchvision's decode
  return {};
}

DecodeStatus ImageDecoder::read_rows(SourceRect rect, int scale_denom, const SubImage& sub) {
  State& s = *state_;
  j_decompress_ptr cinfo = &s.cinfo;
  if (setjmp(s.errors.jump)) {
    jpeg_abort_decompress(cinfo);
    return {s.fatal, s.errors.message};
  }
  cinfo->scale_num = 1;
  cinfo->scale_denom = static_cast<unsigned>(scale_denom);
  info_.scale_denom = scale_denom;
  jpeg_start_decompress(cinfo);
  // The stream's first pixel in the scaled image: exact, as a sub-image starts on the MCU grid
  // (a multiple of 8 pixels) and scale_denom is at most 8.
  const int sub_x = sub.x / scale_denom, sub_y = sub.y / scale_denom;
  const int out_w = static_cast<int>(cinfo->output_width);
  const int full_w = (info_.width + scale_denom - 1) / scale_denom;
  // With jpeg_crop_scanline, libjpeg-turbo's fancy chroma upsampling treats the crop's first
  // and last columns as image edges, so they differ from a full decode: decode one more
  // column on each side than the filter reads.
  const int cx0 = std::clamp(rect.x0 - 1 - sub_x, 0, out_w);
  const int cx1 = std::clamp(std::min(rect.x1 + 1, full_w) - sub_x, cx0, out_w);
  JDIMENSION x0 = static_cast<JDIMENSION>(cx0);
  JDIMENSION width = static_cast<JDIMENSION>(cx1 - cx0);
  if (width < cinfo->output_width) jpeg_crop_scanline(cinfo, &x0, &width);
  region_x0_ = static_cast<int>(x0) + sub_x;
  region_y0_ = rect.y0;
  region_w_ = static_cast<int>(width);
  region_h_ = rect.y1 - rect.y0;
  region_stride_ = static_cast<std::size_t>(width) * cinfo->output_components;
  region_.resize(region_stride_ * static_cast<std::size_t>(region_h_));
  const int y0 = rect.y0 - sub_y, y1 = rect.y1 - sub_y;
  if (y0 > 0) jpeg_skip_scanlines(cinfo, static_cast<JDIMENSION>(y0));
  // Several rows per call, as TurboJPEG asks for them: fewer calls through libjpeg's
  // controllers, and a row group of subsampled chroma is upsampled in one go.
  constexpr int kRowsPerCall = 16;
  JSAMPROW rows[kRowsPerCall];
  while (cinfo->output_scanline < static_cast<JDIMENSION>(y1)) {
    const int first = static_cast<int>(cinfo->output_scanline);
    const int count = std::min(kRowsPerCall, y1 - first);
    for (int i = 0; i < count; ++i) rows[i] = &region_[(first + i - y0) * region_stride_];
    jpeg_read_scanlines(cinfo, rows, static_cast<JDIMENSION>(count));
  }
  if (cinfo->out_color_space == JCS_CMYK) {
    for (int y = 0; y < region_h_; ++y)
      cmyk_to_rgb_in_place(&region_[y * region_stride_], region_w_);
  }
  return {};
}

DecodeStatus ImageDecoder::finish(std::span<const std::uint8_t> jpeg) {
  State& s = *state_;
  j_decompress_ptr cinfo = &s.cinfo;
  if (setjmp(s.errors.jump)) {
    jpeg_abort_decompress(cinfo);
    return {s.fatal, s.errors.message};
  }
  bool complete = false;
  if (cinfo->output_scanline < cinfo->output_height) {
    // Stopped early: rows below the crop are never entropy-decoded. Truncation shows as a
    // missing end marker in the bytes not consumed yet.
    // The entropy decoder may already have read up to the marker that follows the scan.
    complete = jpeg_input_complete(cinfo) || cinfo->unread_marker == JPEG_EOI ||
               has_end_marker(cinfo->src->next_input_byte, cinfo->src->bytes_in_buffer);
    jpeg_abort_decompress(cinfo);
  } else {
    jpeg_finish_decompress(cinfo);
    complete = true;
  }
  if (s.errors.saw_eof || !complete) {
    return {DecodeErrc::kTruncated,
            "data ends before the image does (" + std::to_string(jpeg.size()) + " bytes)"};
  }
  if (s.errors.warnings > 0 && limits_.on_warning == WarningPolicy::kReject) {
    return {DecodeErrc::kWarning, std::string(s.errors.first_warning) + " (" +
                                      std::to_string(s.errors.warnings) +
                                      " warning(s); policy on_warning = reject)"};
  }
  return {};
}

DecodeStatus ImageDecoder::open_packed(std::span<const std::uint8_t> jpeg, SourceRect rect,
                                       int scale_denom, SubImage& sub,
                                       std::span<const std::uint8_t>& stream) {
  bool found = false;
  if (DecodeStatus status = read_restart_index(jpeg, restart_index_, found); !status.ok()) {
    jpeg_abort_decompress(&state_->cinfo);
    return status;
  }
  if (!found) return {};
  info_.packed = true;
  info_.scan_bytes = info_.scan_bytes_read = restart_index_.scan_bytes;
  // The pixels the filter reads, at full size. read_rows also decodes one column beside them on
  // each side, clamped to the sub-image: those need not be exact.
  const int d = scale_denom;
  const McuRect mcus =
      covering_rect(restart_index_, rect.x0 * d, rect.y0 * d, std::min(rect.x1 * d, info_.width),
                    std::min(rect.y1 * d, info_.height));
  if (mcus.col0 == 0 && mcus.row0 == 0 && mcus.col1 == restart_index_.mcu_columns &&
      mcus.row1 == restart_index_.mcu_rows) {
    return {};
  }
  if (DecodeStatus status = build_substream(jpeg, restart_index_, mcus, substream_); !status.ok()) {
    jpeg_abort_decompress(&state_->cinfo);
    return status;
  }
  jpeg_abort_decompress(&state_->cinfo);
  const ImageInfo whole = info_;
  if (DecodeStatus status = open(substream_); !status.ok()) {
    return {status.code, "sub-stream of a packed JPEG: " + status.message};
  }
  info_ = whole;
  // The sub-stream's headers are the image's without the index segment; EOI ends it.
  info_.scan_bytes_read =
      substream_.size() - (restart_index_.scan_start - restart_index_.index_length) - 2;
  sub = sub_image_of(restart_index_, mcus);
  stream = substream_;
  return {};
}

DecodeStatus ImageDecoder::decode(std::span<const std::uint8_t> jpeg, const TransformSpec& spec,
                                  std::uint64_t sample_seed, std::span<std::uint8_t> out) {
  const std::size_t needed = static_cast<std::size_t>(spec.size) * spec.size * 3;
  if (out.size() < needed) return {DecodeErrc::kCorrupt, "output buffer too small"};
  if (DecodeStatus status = open(jpeg); !status.ok()) return status;
  Rng rng(sample_seed);
  const ResizePlan plan = plan_transform(spec, info_.width, info_.height, rng);
  const int denom = pick_scale_denom(plan, info_.width, info_.height);
  // libjpeg's scaled size: each side rounded up.
  const int scaled_w = (info_.width + denom - 1) / denom;
  const int scaled_h = (info_.height + denom - 1) / denom;
  const double scale = 1.0 / denom;
  const SourceRect rect = resampler_.prepare(scale_plan(plan, scale, scale, scaled_w, scaled_h));
  SubImage sub{0, 0, info_.width, info_.height};
  std::span<const std::uint8_t> stream = jpeg;
  if (DecodeStatus status = open_packed(jpeg, rect, denom, sub, stream); !status.ok()) {
    return status;
  }
  if (DecodeStatus status = read_rows(rect, denom, sub); !status.ok()) return status;
  if (DecodeStatus status = finish(stream); !status.ok()) return status;
  resampler_.run(region_.data(), region_stride_, region_x0_, region_y0_, out.data());
  return {};
}

DecodeStatus ImageDecoder::decode_full(std::span<const std::uint8_t> jpeg,
                                       std::vector<std::uint8_t>& rgb) {
  if (DecodeStatus status = open(jpeg); !status.ok()) return status;
  const SubImage whole{0, 0, info_.width, info_.height};
  if (DecodeStatus status = read_rows({0, 0, info_.width, info_.height}, 1, whole); !status.ok()) {
    return status;
  }
  if (DecodeStatus status = finish(jpeg); !status.ok()) return status;
  const std::size_t row_bytes = static_cast<std::size_t>(info_.width) * 3;
  if (region_stride_ == row_bytes) {
    // Packed RGB already: hand the rows over and keep the caller's old buffer as scratch, so
    // a caller that reuses `rgb` makes neither a copy nor an allocation.
    rgb.swap(region_);
    return {};
  }
  rgb.resize(row_bytes * info_.height);
  for (int y = 0; y < info_.height; ++y) {
    std::copy_n(&region_[y * region_stride_], row_bytes, &rgb[y * row_bytes]);
  }
  return {};
}

}  // namespace feedrate::decode
