// AVX2 forms of decode/cv2_rows.h's kernels: eight pixels or thirty-two values an iteration,
// the same integers and float operations as the portable ones. The functions carry the target
// attribute instead of the file being compiled with -mavx2, so nothing else can pick up AVX2
// instructions (as decode/resize_avx2.cc).
#include "decode/cv2_rows.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cstring>

#define FEEDRATE_AVX2 __attribute__((target("avx2")))
#define FEEDRATE_AVX2_INLINE inline __attribute__((target("avx2"), always_inline))

namespace feedrate::decode::cv2::rows {
namespace {

// Channel `c` of eight packed RGB pixels as 32-bit lanes: the low half loaded from the first
// pixel, the high half from byte 8 (so pixel 4 starts at its byte 4 and nothing past the 24
// bytes is read).
FEEDRATE_AVX2_INLINE __m256i channel(__m256i bytes, int c) {
  const __m256i pick =
      _mm256_setr_epi8(0, -1, -1, -1, 3, -1, -1, -1, 6, -1, -1, -1, 9, -1, -1, -1, 4, -1, -1, -1, 7,
                       -1, -1, -1, 10, -1, -1, -1, 13, -1, -1, -1);
  const __m256i mask = _mm256_cmpeq_epi8(pick, _mm256_set1_epi8(-1));
  return _mm256_shuffle_epi8(
      bytes, _mm256_or_si256(_mm256_add_epi8(pick, _mm256_set1_epi8(static_cast<char>(c))), mask));
}

// RandomHSV's saturation or value table at x where it is the float product
// (HsvTables::float_gains): x gain clamped to 0..255, truncated, over 255.
FEEDRATE_AVX2_INLINE __m256 scaled(__m256i x, float gain) {
  const __m256 v =
      _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(x), _mm256_set1_ps(gain)),
                                  _mm256_setzero_ps()),
                    _mm256_set1_ps(255.0f));
  return _mm256_mul_ps(_mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC),
                       _mm256_set1_ps(1.0f / 255.0f));
}

// The hue table at h (0..179) where it is a turn: (h + turn) mod 180, times 6/180 in float.
FEEDRATE_AVX2_INLINE __m256 turned(__m256i h, int turn) {
  const __m256i last = _mm256_set1_epi32(179), whole = _mm256_set1_epi32(180);
  __m256i hue = _mm256_add_epi32(h, _mm256_set1_epi32(turn));
  hue = _mm256_sub_epi32(hue, _mm256_and_si256(_mm256_cmpgt_epi32(hue, last), whole));
  return _mm256_mul_ps(_mm256_cvtepi32_ps(hue), _mm256_set1_ps(6.0f / 180.0f));
}

FEEDRATE_AVX2_INLINE __m256 select(__m256i sector, int k, __m256 then, __m256 otherwise) {
  const __m256i is = _mm256_cmpeq_epi32(sector, _mm256_set1_epi32(k));
  return _mm256_blendv_ps(otherwise, then, _mm256_castsi256_ps(is));
}

// kTurn: the hue table computed as its turn (HsvTables::hue_turn), else gathered; kFloatGains:
// the saturation and value tables computed as float products, else gathered.
template <bool kTurn, bool kFloatGains>
FEEDRATE_AVX2_INLINE void hsv_pixels(std::uint8_t* pixels, std::size_t n, const HsvTables& t) {
  constexpr int kShift = 12;
  const __m256i half = _mm256_set1_epi32(1 << (kShift - 1));
  const __m256 one = _mm256_set1_ps(1.0f), scale = _mm256_set1_ps(255.0f);
  // Bytes 0..3 of each 128-bit lane: R0 G0 B0 R1 G1 B1 ... from R0..3 G0..3 B0..3.
  const __m256i interleave = _mm256_setr_epi8(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1,
                                              0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1);
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    std::uint8_t* q = pixels + k * 3;
    const __m256i bytes = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<__m128i*>(q))),
        _mm_loadu_si128(reinterpret_cast<__m128i*>(q + 8)), 1);
    const __m256i r = channel(bytes, 0), g = channel(bytes, 1), b = channel(bytes, 2);
    // RGB2HSV_b.
    const __m256i v = _mm256_max_epi32(_mm256_max_epi32(r, g), b);
    const __m256i diff = _mm256_sub_epi32(v, _mm256_min_epi32(_mm256_min_epi32(r, g), b));
    // RGB2HSV_b's divisions: the float quotient rounds to the same integer as the double one
    // for every divisor 1..255, checked (the 0 entries multiply a difference of 0).
    const __m256i one_i = _mm256_set1_epi32(1);
    const __m256i sdiv = _mm256_cvtps_epi32(_mm256_div_ps(
        _mm256_set1_ps(255 << kShift), _mm256_cvtepi32_ps(_mm256_max_epi32(v, one_i))));
    const __m256i hdiv = _mm256_cvtps_epi32(_mm256_div_ps(
        _mm256_set1_ps(180 << kShift),
        _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_max_epi32(diff, one_i)), _mm256_set1_ps(6.0f))));
    const __m256i s =
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(diff, sdiv), half), kShift);
    const __m256i h_r = _mm256_sub_epi32(g, b);
    const __m256i h_g = _mm256_add_epi32(_mm256_sub_epi32(b, r), _mm256_slli_epi32(diff, 1));
    const __m256i h_b = _mm256_add_epi32(_mm256_sub_epi32(r, g), _mm256_slli_epi32(diff, 2));
    __m256i h = _mm256_blendv_epi8(h_b, h_g, _mm256_cmpeq_epi32(v, g));
    h = _mm256_blendv_epi8(h, h_r, _mm256_cmpeq_epi32(v, r));
    h = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(h, hdiv), half), kShift);
    h = _mm256_add_epi32(
        h, _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), h), _mm256_set1_epi32(180)));
    // h is 0..179 for every colour (the baseline's clamp to the table never acts).
    const __m256 hh = kTurn ? turned(h, t.hue_turn) : _mm256_i32gather_ps(t.h.data(), h, 4);
    const __m256 sat = kFloatGains ? scaled(s, t.gain_s) : _mm256_i32gather_ps(t.s.data(), s, 4);
    const __m256 val = kFloatGains ? scaled(v, t.gain_v) : _mm256_i32gather_ps(t.v.data(), v, 4);
    // HSV2RGB as the portable kernel: the same operations in the same order.
    const __m256i sector = _mm256_cvttps_epi32(hh);
    const __m256 f = _mm256_sub_ps(hh, _mm256_cvtepi32_ps(sector));
    const __m256 t0 = val, t1 = _mm256_mul_ps(val, _mm256_sub_ps(one, sat)),
                 t2 = _mm256_mul_ps(val, _mm256_sub_ps(one, _mm256_mul_ps(sat, f))),
                 t3 = _mm256_mul_ps(val,
                                    _mm256_sub_ps(one, _mm256_mul_ps(sat, _mm256_sub_ps(one, f))));
    __m256 red = select(sector, 1, t2, t1), green = select(sector, 0, t3, t1),
           blue = select(sector, 2, t3, t1);
    red = select(sector, 0, t0, select(sector, 5, t0, select(sector, 4, t3, red)));
    green = select(sector, 1, t0, select(sector, 2, t0, select(sector, 3, t2, green)));
    blue = select(sector, 3, t0, select(sector, 4, t0, select(sector, 5, t2, blue)));
    const __m256i rg = _mm256_packus_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(red, scale)),
                                           _mm256_cvttps_epi32(_mm256_mul_ps(green, scale)));
    const __m256i bb = _mm256_cvttps_epi32(_mm256_mul_ps(blue, scale));
    const __m256i packed =
        _mm256_shuffle_epi8(_mm256_packus_epi16(rg, _mm256_packus_epi32(bb, bb)), interleave);
    // Twelve bytes from each half: the pixels after these have not been read yet.
    const __m128i low = _mm256_castsi256_si128(packed), high = _mm256_extracti128_si256(packed, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q), low);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(q + 12), high);
    const int last = _mm_extract_epi32(high, 2);
    std::memcpy(q + 20, &last, sizeof last);
  }
  baseline().hsv(pixels + k * 3, n - k, t);
}

FEEDRATE_AVX2 void hsv(std::uint8_t* pixels, std::size_t n, const HsvTables& t) {
  if (t.hue_turn >= 0) {
    t.float_gains ? hsv_pixels<true, true>(pixels, n, t) : hsv_pixels<true, false>(pixels, n, t);
  } else {
    t.float_gains ? hsv_pixels<false, true>(pixels, n, t) : hsv_pixels<false, false>(pixels, n, t);
  }
}

// Lanes of two pixels' eight bytes each (taps t0..t5 of the first at bytes 0..5, of the
// second at 8..13) as the 16-bit pairs (channel c of t0..2, the same of t3..5) of four outputs
// that start at channel 0, 1 or 2 of the first pixel.
FEEDRATE_AVX2_INLINE __m256i pairs_of(__m128i low, __m128i high, int low_from, int high_from) {
  alignas(16) static constexpr char kMasks[3][16] = {
      {0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, 8, -1, 11, -1},
      {1, -1, 4, -1, 2, -1, 5, -1, 8, -1, 11, -1, 9, -1, 12, -1},
      {2, -1, 5, -1, 8, -1, 11, -1, 9, -1, 12, -1, 10, -1, 13, -1}};
  const __m256i bytes = _mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1);
  const __m256i pick = _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(kMasks[low_from]))),
      _mm_load_si128(reinterpret_cast<const __m128i*>(kMasks[high_from])), 1);
  return _mm256_shuffle_epi8(bytes, pick);
}

// Eight pixels (24 outputs) at a time: one 8-byte load a pixel holds both taps of its three
// channels, shuffled into the 16-bit pairs that one multiply-add weighs. (Not gathers: AVX2's
// gathers are slower than loads on some CPUs, AMD Zen 2 among them.)
FEEDRATE_AVX2 void pairs(const std::uint8_t* line, const int* offsets, const std::uint32_t* weights,
                         int pixels, int shift, std::int16_t* out) {
  const __m128i count = _mm_cvtsi32_si128(shift);
  int x = 0;
  for (; x + 8 <= pixels; x += 8) {
    __m128i q[8];
    for (int j = 0; j < 8; ++j) {
      q[j] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(line + offsets[x + j]));
    }
    const __m256i taps[3] = {
        pairs_of(_mm_unpacklo_epi64(q[0], q[1]), _mm_unpacklo_epi64(q[1], q[2]), 0, 1),
        pairs_of(_mm_unpacklo_epi64(q[2], q[3]), _mm_unpacklo_epi64(q[4], q[5]), 2, 0),
        pairs_of(_mm_unpacklo_epi64(q[5], q[6]), _mm_unpacklo_epi64(q[6], q[7]), 1, 2)};
    __m256i sums[3];
    for (int k = 0; k < 3; ++k) {
      const __m256i w = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(weights + static_cast<std::size_t>(x) * 3 + 8 * k));
      sums[k] = _mm256_sra_epi32(_mm256_madd_epi16(taps[k], w), count);
    }
    // packs works within 128-bit lanes: the permutation puts the 64-bit quarters in order.
    std::int16_t* o = out + static_cast<std::size_t>(x) * 3;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o),
                        _mm256_permute4x64_epi64(_mm256_packs_epi32(sums[0], sums[1]), 0xd8));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 16),
                     _mm256_castsi256_si128(
                         _mm256_permute4x64_epi64(_mm256_packs_epi32(sums[2], sums[2]), 0xd8)));
  }
  baseline().pairs(line, offsets + x, weights + x * 3, pixels - x, shift, out + x * 3);
}

// A vertical blend thirty-two outputs at a time, of which it returns the count: `blend` turns
// sixteen (top, bottom) pairs into sixteen values, saturated to bytes.
template <typename Blend>
FEEDRATE_AVX2_INLINE int blend_rows(const std::int16_t* top, const std::int16_t* bottom, int count,
                                    std::uint8_t* out, const Blend& blend) {
  int i = 0;
  for (; i + 32 <= count; i += 32) {
    __m256i halves[2];
    for (int h = 0; h < 2; ++h) {
      halves[h] = blend(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(top + i + 16 * h)),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bottom + i + 16 * h)));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_permute4x64_epi64(_mm256_packus_epi16(halves[0], halves[1]), 0xd8));
  }
  return i;
}

// warp_vertical's blend: each pair weighed by one multiply-add.
struct WarpBlend {
  __m256i weights, round;
  FEEDRATE_AVX2_INLINE __m256i operator()(__m256i top, __m256i bottom) const {
    const __m256i low = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(top, bottom), weights), round),
        10);
    const __m256i high = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(top, bottom), weights), round),
        10);
    return _mm256_packs_epi32(low, high);
  }
};

// resize_vertical's blend: the 16-bit high products, as VResizeLinearVec_32s8u.
struct ResizeBlend {
  __m256i b0, b1, two;
  FEEDRATE_AVX2_INLINE __m256i operator()(__m256i top, __m256i bottom) const {
    const __m256i sum =
        _mm256_add_epi16(_mm256_mulhi_epi16(top, b0), _mm256_mulhi_epi16(bottom, b1));
    return _mm256_srai_epi16(_mm256_add_epi16(sum, two), 2);
  }
};

FEEDRATE_AVX2 void warp_vertical(const std::int16_t* top, const std::int16_t* bottom, int ay,
                                 int count, std::uint8_t* out) {
  const WarpBlend blend{_mm256_set1_epi32((32 - ay) | ay << 16), _mm256_set1_epi32(1 << 9)};
  const int i = blend_rows(top, bottom, count, out, blend);
  baseline().warp_vertical(top + i, bottom + i, ay, count - i, out + i);
}

FEEDRATE_AVX2 void resize_vertical(const std::int16_t* top, const std::int16_t* bottom, int b0,
                                   int b1, int count, std::uint8_t* out) {
  const ResizeBlend blend{_mm256_set1_epi16(static_cast<std::int16_t>(b0)),
                          _mm256_set1_epi16(static_cast<std::int16_t>(b1)), _mm256_set1_epi16(2)};
  const int i = blend_rows(top, bottom, count, out, blend);
  baseline().resize_vertical(top + i, bottom + i, b0, b1, count - i, out + i);
}

}  // namespace

const Kernels* avx2() {
  static const Kernels kernels{"avx2", hsv, pairs, warp_vertical, resize_vertical};
  static const bool supported = __builtin_cpu_supports("avx2");
  return supported ? &kernels : nullptr;
}

}  // namespace feedrate::decode::cv2::rows

#else

namespace feedrate::decode::cv2::rows {

const Kernels* avx2() {
  return nullptr;
}

}  // namespace feedrate::decode::cv2::rows

#endif
