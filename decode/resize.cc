#include "decode/resize.h"

#include <algorithm>
#include <cmath>

namespace feedrate::decode {

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
  rows_y0_ = rect.y0;
  rows_y1_ = rect.y1;
  return rect;
}

void Resampler::run(const std::uint8_t* src, std::size_t src_stride, int src_x0, int src_y0,
                    std::uint8_t* dst) {
  const int row_floats = win_w_ * 3;
  rows_.resize(static_cast<std::size_t>(rows_y1_ - rows_y0_) * row_floats);

  // Horizontal pass over every source row the vertical filter reads.
  const int max_h = horizontal_.max_taps;
  for (int y = rows_y0_; y < rows_y1_; ++y) {
    const std::uint8_t* in = src + static_cast<std::size_t>(y - src_y0) * src_stride;
    float* out = &rows_[static_cast<std::size_t>(y - rows_y0_) * row_floats];
    for (int i = 0; i < win_w_; ++i) {
      const std::uint8_t* p = in + static_cast<std::size_t>(horizontal_.first[i] - src_x0) * 3;
      const float* w = &horizontal_.weights[static_cast<std::size_t>(i) * max_h];
      float r = 0, g = 0, b = 0;
      for (int k = 0; k < horizontal_.count[i]; ++k) {
        r += w[k] * p[3 * k];
        g += w[k] * p[3 * k + 1];
        b += w[k] * p[3 * k + 2];
      }
      const int o = flip_ ? win_w_ - 1 - i : i;
      out[3 * o] = r;
      out[3 * o + 1] = g;
      out[3 * o + 2] = b;
    }
  }

  // Vertical pass: each output row is a weighted sum of whole intermediate rows; the loops run
  // along the row so the compiler vectorises them.
  const int max_v = vertical_.max_taps;
  accumulator_.resize(row_floats);
  for (int j = 0; j < win_h_; ++j) {
    const float* w = &vertical_.weights[static_cast<std::size_t>(j) * max_v];
    const float* base =
        &rows_[static_cast<std::size_t>(vertical_.first[j] - rows_y0_) * row_floats];
    float* acc = accumulator_.data();
    std::fill(acc, acc + row_floats, 0.5f);  // +0.5 then truncation rounds to nearest
    for (int k = 0; k < vertical_.count[j]; ++k) {
      const float wk = w[k];
      const float* row = base + static_cast<std::size_t>(k) * row_floats;
      for (int x = 0; x < row_floats; ++x) acc[x] += wk * row[x];
    }
    std::uint8_t* out = dst + static_cast<std::size_t>(j) * row_floats;
    for (int x = 0; x < row_floats; ++x) {
      out[x] = static_cast<std::uint8_t>(std::clamp(acc[x], 0.0f, 255.0f));
    }
  }
}

}  // namespace feedrate::decode
