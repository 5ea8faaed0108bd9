#include "decode/resize.h"

#include <algorithm>
#include <cmath>

#include "decode/resize_kernels.h"

namespace feedrate::decode {

const char* Resampler::kernels() {
  return kernels::best().name;
}

namespace {

// PIL's filters (libImaging/Resample.c): the triangle, and the cubic with a = -0.5.
double filter_weight(Interpolation interpolation, double x) {
  x = std::abs(x);
  if (interpolation == Interpolation::kBilinear) return x < 1.0 ? 1.0 - x : 0.0;
  constexpr double a = -0.5;
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return (((x - 5.0) * x + 8.0) * x - 4.0) * a;
  return 0.0;
}

double filter_support(Interpolation interpolation) {
  return interpolation == Interpolation::kBilinear ? 1.0 : 2.0;
}

}  // namespace

void Resampler::build(Taps& taps, Interpolation interpolation, double box_start, double box_len,
                      int out_len, int win_start, int win_len, int clip_lo, int clip_hi) {
  // PIL's precompute_coeffs: the filter's support widened by the downscale factor, so each
  // output pixel averages every source pixel it covers (antialiasing).
  const double scale = box_len / out_len;
  const double filter_scale = std::max(scale, 1.0);
  const double support = filter_support(interpolation) * filter_scale;
  taps.max_taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  taps.first.resize(win_len);
  taps.count.resize(win_len);
  taps.weights.assign(static_cast<std::size_t>(win_len) * taps.max_taps, 0.0f);
  for (int i = 0; i < win_len; ++i) {
    const double center = box_start + (win_start + i + 0.5) * scale;
    int lo = std::max(static_cast<int>(std::floor(center - support + 0.5)), clip_lo);
    int hi = std::min(static_cast<int>(std::floor(center + support + 0.5)), clip_hi);
    if (hi <= lo) {  // a degenerate box: take the nearest pixel inside the clip
      lo = std::clamp(static_cast<int>(std::floor(center)), clip_lo, clip_hi - 1);
      hi = lo + 1;
    }
    hi = std::min(hi, lo + taps.max_taps);
    float* weights = &taps.weights[static_cast<std::size_t>(i) * taps.max_taps];
    double total = 0;
    for (int x = lo; x < hi; ++x) {
      const double w = filter_weight(interpolation, (x - center + 0.5) / filter_scale);
      weights[x - lo] = static_cast<float>(w);
      total += w;
    }
    if (total == 0) {
      weights[0] = 1.0f;
      hi = lo + 1;
      total = 1;
    }
    for (int x = lo; x < hi; ++x) weights[x - lo] = static_cast<float>(weights[x - lo] / total);
    taps.first[i] = lo;
    taps.count[i] = hi - lo;
  }
  // The bound above counts the filter's whole support; the taps of an output index are often
  // fewer. Tighten the stride to the most any index uses, so no pass reads all-zero taps.
  const int used = *std::max_element(taps.count.begin(), taps.count.end());
  if (used < taps.max_taps) {
    for (int i = 1; i < win_len; ++i) {
      std::copy_n(&taps.weights[static_cast<std::size_t>(i) * taps.max_taps], used,
                  &taps.weights[static_cast<std::size_t>(i) * used]);
    }
    taps.max_taps = used;
    taps.weights.resize(static_cast<std::size_t>(win_len) * used);
  }
}

SourceRect Resampler::prepare(const ResizePlan& plan) {
  build(horizontal_, plan.interpolation, plan.box_x, plan.box_w, plan.out_w, plan.win_x, plan.win_w,
        plan.clip_x0, plan.clip_x1);
  build(vertical_, plan.interpolation, plan.box_y, plan.box_h, plan.out_h, plan.win_y, plan.win_h,
        plan.clip_y0, plan.clip_y1);
  win_w_ = plan.win_w;
  win_h_ = plan.win_h;
  flip_ = plan.flip;
  SourceRect rect;
  rect.x0 = horizontal_.first.front();
  rect.x1 = horizontal_.first.back() + horizontal_.count.back();
  rect.y0 = vertical_.first.front();
  rect.y1 = vertical_.first.back() + vertical_.count.back();
  // Tap ranges move monotonically with the output index, but take the extremes anyway.
  for (int i = 0; i < win_w_; ++i) {
    rect.x0 = std::min(rect.x0, horizontal_.first[i]);
    rect.x1 = std::max(rect.x1, horizontal_.first[i] + horizontal_.count[i]);
  }
  for (int i = 0; i < win_h_; ++i) {
    rect.y0 = std::min(rect.y0, vertical_.first[i]);
    rect.y1 = std::max(rect.y1, vertical_.first[i] + vertical_.count[i]);
  }
  cols_x0_ = rect.x0;
  cols_x1_ = rect.x1;
  tap_offsets_.resize(static_cast<std::size_t>(win_w_));
  for (int i = 0; i < win_w_; ++i) tap_offsets_[i] = (horizontal_.first[i] - cols_x0_) * 3;
  return rect;
}

void Resampler::run(const std::uint8_t* src, std::size_t src_stride, int src_x0, int src_y0,
                    std::uint8_t* dst) {
  // Vertical pass first, one output row at a time: it runs along whole rows (vectorised) and
  // leaves only win_h rows for the horizontal pass, whose gathers do not vectorise. The two
  // passes are linear and nothing is rounded in between, so the order does not change the
  // result (PIL filters horizontally first).
  const int columns = cols_x1_ - cols_x0_;
  const int row_floats = columns * 3;
  const int max_h = horizontal_.max_taps;
  // Two rows of vertical sums, each followed by padding: the horizontal pass reads max_taps
  // taps of every pixel (zero weights past its own) and 4 floats for each 3. Only the padding
  // needs zeroing: every other float is written by the vertical pass before it is read.
  const std::size_t row_stride = static_cast<std::size_t>(row_floats + 3 * max_h + 1);
  column_sums_.resize(2 * row_stride);
  float* const sums[2] = {column_sums_.data(), column_sums_.data() + row_stride};
  for (float* row : sums) std::fill(row + row_floats, row + row_stride, 0.0f);
  const int max_v = vertical_.max_taps;
  const std::size_t src_x = static_cast<std::size_t>(cols_x0_ - src_x0) * 3;
  const kernels::RowKernels& kernel = kernels::best();
  const auto vertical = [&](int j, float* row_sums) {
    const std::uint8_t* first =
        src + static_cast<std::size_t>(vertical_.first[j] - src_y0) * src_stride + src_x;
    kernel.vertical(first, src_stride, &vertical_.weights[static_cast<std::size_t>(j) * max_v],
                    vertical_.count[j], row_floats, row_sums);
  };
  const auto out_row = [&](int j) { return dst + static_cast<std::size_t>(j) * win_w_ * 3; };
  // Output rows two at a time: the horizontal taps are the same for every row.
  int j = 0;
  for (; j + 1 < win_h_; j += 2) {
    vertical(j, sums[0]);
    vertical(j + 1, sums[1]);
    kernel.horizontal_pair(sums[0], sums[1], tap_offsets_.data(), horizontal_.weights.data(), max_h,
                           win_w_, flip_, out_row(j), out_row(j + 1));
  }
  if (j < win_h_) {
    vertical(j, sums[0]);
    kernel.horizontal(sums[0], tap_offsets_.data(), horizontal_.weights.data(), max_h, win_w_,
                      flip_, out_row(j));
  }
}

}  // namespace feedrate::decode
