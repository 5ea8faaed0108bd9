#include "decode/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace feedrate::decode {
namespace {

// Four floats in one SIMD register (GCC/Clang vector extension: SSE on x86, NEON on Arm).
typedef float Float4 __attribute__((vector_size(16)));
typedef std::int32_t Int4 __attribute__((vector_size(16)));
typedef std::uint8_t Bytes4 __attribute__((vector_size(4)));

Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Sixteen bytes as sixteen floats. The generic form (a vector conversion) compiles to one
// scalar conversion per byte on baseline x86-64, so SSE2 unpacks with zero instead.
void widen16(const std::uint8_t* p, Float4& v0, Float4& v1, Float4& v2, Float4& v3) {
#if defined(__SSE2__)
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i zero = _mm_setzero_si128();
  const __m128i lo = _mm_unpacklo_epi8(bytes, zero), hi = _mm_unpackhi_epi8(bytes, zero);
  v0 = reinterpret_cast<Float4>(_mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)));
  v1 = reinterpret_cast<Float4>(_mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)));
  v2 = reinterpret_cast<Float4>(_mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)));
  v3 = reinterpret_cast<Float4>(_mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)));
#else
  typedef std::uint8_t Bytes16 __attribute__((vector_size(16)));
  typedef float Float16 __attribute__((vector_size(64)));
  Bytes16 bytes;
  std::memcpy(&bytes, p, sizeof(bytes));
  const Float16 all = __builtin_convertvector(bytes, Float16);
  std::memcpy(&v0, &all[0], sizeof(v0));
  std::memcpy(&v1, &all[4], sizeof(v1));
  std::memcpy(&v2, &all[8], sizeof(v2));
  std::memcpy(&v3, &all[12], sizeof(v3));
#endif
}

// Truncates four floats to integers and saturates them to 0..255 (the sums are rounded by
// their +0.5). SSE2's saturating packs do the clamp; the generic form clamps first.
Bytes4 to_bytes(Float4 sum) {
#if defined(__SSE2__)
  const __m128i ints = _mm_cvttps_epi32(reinterpret_cast<__m128>(sum));
  const __m128i shorts = _mm_packs_epi32(ints, ints);
  const int packed = _mm_cvtsi128_si32(_mm_packus_epi16(shorts, shorts));
  Bytes4 bytes;
  std::memcpy(&bytes, &packed, sizeof(bytes));
  return bytes;
#else
  const Float4 low = {0, 0, 0, 0}, high = {255, 255, 255, 255};
  const Float4 clamped = sum < low ? low : (sum > high ? high : sum);
  return __builtin_convertvector(__builtin_convertvector(clamped, Int4), Bytes4);
#endif
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
  // Padding: the horizontal pass reads max_taps taps of every pixel (zero weights past its
  // own) and 4 floats for each 3. Only the padding needs zeroing: every other float is
  // written by the vertical pass before it is read.
  column_sums_.resize(static_cast<std::size_t>(row_floats + 3 * max_h + 1));
  std::fill(column_sums_.begin() + row_floats, column_sums_.end(), 0.0f);
  const int max_v = vertical_.max_taps;
  const std::size_t src_x = static_cast<std::size_t>(cols_x0_ - src_x0) * 3;
  for (int j = 0; j < win_h_; ++j) {
    const float* wv = &vertical_.weights[static_cast<std::size_t>(j) * max_v];
    const int taps = vertical_.count[j];
    const std::uint8_t* first =
        src + static_cast<std::size_t>(vertical_.first[j] - src_y0) * src_stride + src_x;
    float* acc = column_sums_.data();
    // Sixteen columns at a time, summed over the taps in registers and stored once; the taps
    // are added in the same order as a tap-by-tap pass over the row, so the sums are the same.
    int x = 0;
    for (; x + 16 <= row_floats; x += 16) {
      Float4 s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0;
      const std::uint8_t* p = first + x;
      for (int k = 0; k < taps; ++k, p += src_stride) {
        Float4 v0, v1, v2, v3;
        widen16(p, v0, v1, v2, v3);
        const float w = wv[k];
        s0 += w * v0;
        s1 += w * v1;
        s2 += w * v2;
        s3 += w * v3;
      }
      std::memcpy(acc + x, &s0, sizeof(s0));
      std::memcpy(acc + x + 4, &s1, sizeof(s1));
      std::memcpy(acc + x + 8, &s2, sizeof(s2));
      std::memcpy(acc + x + 12, &s3, sizeof(s3));
    }
    for (; x < row_floats; ++x) {
      float sum = 0;
      const std::uint8_t* p = first + x;
      for (int k = 0; k < taps; ++k, p += src_stride) sum += wv[k] * static_cast<float>(*p);
      acc[x] = sum;
    }

    // Horizontal pass: each output pixel is one 4-lane register holding R, G, B and the next
    // pixel's R (ignored). Pixels are produced in the order they are stored (right to left in
    // the source when flipped), two at a time with two accumulators each, so that four chains
    // of dependent additions overlap; both run over max_taps taps, the weights past a pixel's
    // own taps being zero (adding them changes no sum). Each pixel is stored as 4 bytes whose
    // last one the next pixel overwrites (not the row's last).
    std::uint8_t* out = dst + static_cast<std::size_t>(j) * win_w_ * 3;
    const Float4 half = {0.5f, 0.5f, 0.5f, 0.0f};  // +0.5 then truncation rounds to nearest
    const Float4 zero = {0, 0, 0, 0};
    int d = 0;
    for (; d + 1 < win_w_; d += 2) {
      const int i0 = flip_ ? win_w_ - 1 - d : d, i1 = flip_ ? i0 - 1 : i0 + 1;
      const float* p0 = acc + tap_offsets_[i0];
      const float* p1 = acc + tap_offsets_[i1];
      const float* w0 = &horizontal_.weights[static_cast<std::size_t>(i0) * max_h];
      const float* w1 = &horizontal_.weights[static_cast<std::size_t>(i1) * max_h];
      Float4 even0 = half, odd0 = zero, even1 = half, odd1 = zero;
      int k = 0;
      for (; k + 1 < max_h; k += 2) {
        even0 += w0[k] * load4(p0 + 3 * k);
        odd0 += w0[k + 1] * load4(p0 + 3 * k + 3);
        even1 += w1[k] * load4(p1 + 3 * k);
        odd1 += w1[k + 1] * load4(p1 + 3 * k + 3);
      }
      if (k < max_h) {
        even0 += w0[k] * load4(p0 + 3 * k);
        even1 += w1[k] * load4(p1 + 3 * k);
      }
      const Bytes4 first_value = to_bytes(even0 + odd0), second_value = to_bytes(even1 + odd1);
      std::memcpy(out + 3 * d, &first_value, 4);
      std::memcpy(out + 3 * d + 3, &second_value, d + 2 < win_w_ ? 4 : 3);
    }
    if (d < win_w_) {
      const int i = flip_ ? 0 : d;
      const float* p = acc + tap_offsets_[i];
      const float* w = &horizontal_.weights[static_cast<std::size_t>(i) * max_h];
      const int count = horizontal_.count[i];
      Float4 even = half, odd = zero;
      int k = 0;
      for (; k + 1 < count; k += 2) {
        even += w[k] * load4(p + 3 * k);
        odd += w[k + 1] * load4(p + 3 * k + 3);
      }
      if (k < count) even += w[k] * load4(p + 3 * k);
      const Bytes4 value = to_bytes(even + odd);
      std::memcpy(out + 3 * d, &value, 3);
    }
  }
}

}  // namespace feedrate::decode
