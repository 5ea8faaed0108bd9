#include "decode/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace feedrate::decode {
namespace {

// Four floats in one SIMD register (GCC/Clang vector extension: SSE on x86, NEON on Arm).
typedef float Float4 __attribute__((vector_size(16)));
typedef std::int32_t Int4 __attribute__((vector_size(16)));

Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace

void Resampler::build(Taps& taps, double box_start, double box_len, int out_len, int win_start,
                      int win_len, int clip_lo, int clip_hi) {
  // PIL's precompute_coeffs: support = 1 (bilinear) widened by the downscale factor, so each
  // output pixel averages every source pixel it covers (antialiasing).
  const double scale = box_len / out_len;
  const double filter_scale = std::max(scale, 1.0);
  const double support = filter_scale;
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
      const double distance = std::abs((x - center + 0.5) / filter_scale);
      const double w = distance < 1.0 ? 1.0 - distance : 0.0;
      weights[x - lo] = static_cast<float>(w);
      total += w;
    }
    if (total <= 0) {
      weights[0] = 1.0f;
      hi = lo + 1;
      total = 1;
    }
    for (int x = lo; x < hi; ++x) weights[x - lo] = static_cast<float>(weights[x - lo] / total);
    taps.first[i] = lo;
    taps.count[i] = hi - lo;
  }
}

SourceRect Resampler::prepare(const ResizePlan& plan) {
  build(horizontal_, plan.box_x, plan.box_w, plan.out_w, plan.win_x, plan.win_w, plan.clip_x0,
        plan.clip_x1);
  build(vertical_, plan.box_y, plan.box_h, plan.out_h, plan.win_y, plan.win_h, plan.clip_y0,
        plan.clip_y1);
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
  column_sums_.assign(static_cast<std::size_t>(row_floats) + 1, 0.0f);  // +1: see load4 below
  pixel_sums_.resize(static_cast<std::size_t>(win_w_));
  const int max_v = vertical_.max_taps;
  for (int j = 0; j < win_h_; ++j) {
    const float* wv = &vertical_.weights[static_cast<std::size_t>(j) * max_v];
    float* acc = column_sums_.data();
    std::fill(acc, acc + row_floats, 0.0f);
    for (int k = 0; k < vertical_.count[j]; ++k) {
      const float wk = wv[k];
      const std::uint8_t* row =
          src + static_cast<std::size_t>(vertical_.first[j] + k - src_y0) * src_stride +
          static_cast<std::size_t>(cols_x0_ - src_x0) * 3;
      for (int x = 0; x < row_floats; ++x) acc[x] += wk * static_cast<float>(row[x]);
    }

    // Horizontal pass: each output pixel is one 4-lane register holding R, G, B and the next
    // pixel's R (ignored; column_sums_ is zero padded so the last load stays inside). Two
    // accumulators halve the chain of dependent additions.
    Float4* sums = pixel_sums_.data();
    for (int i = 0; i < win_w_; ++i) {
      const float* p = acc + tap_offsets_[i];
      const float* w = &horizontal_.weights[static_cast<std::size_t>(i) * max_h];
      const int count = horizontal_.count[i];
      Float4 even = {0.5f, 0.5f, 0.5f, 0.0f};  // +0.5 then truncation rounds to nearest
      Float4 odd = {0, 0, 0, 0};
      int k = 0;
      for (; k + 1 < count; k += 2) {
        even += w[k] * load4(p + 3 * k);
        odd += w[k + 1] * load4(p + 3 * k + 3);
      }
      if (k < count) even += w[k] * load4(p + 3 * k);
      sums[i] = even + odd;
    }
    std::uint8_t* out = dst + static_cast<std::size_t>(j) * win_w_ * 3;
    const Float4 low = {0, 0, 0, 0}, high = {255, 255, 255, 255};
    for (int i = 0; i < win_w_; ++i) {
      const Float4 clamped = sums[i] < low ? low : (sums[i] > high ? high : sums[i]);
      const Int4 value = __builtin_convertvector(clamped, Int4);
      std::uint8_t* o = out + 3 * (flip_ ? win_w_ - 1 - i : i);
      o[0] = static_cast<std::uint8_t>(value[0]);
      o[1] = static_cast<std::uint8_t>(value[1]);
      o[2] = static_cast<std::uint8_t>(value[2]);
    }
  }
}

}  // namespace feedrate::decode
