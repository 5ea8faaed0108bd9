// AVX2 forms of the resampler's kernels: eight floats per operation. The functions carry the
// target attribute instead of the whole file being compiled with -mavx2, so nothing else in the
// library can pick up AVX2 instructions and the baseline build still runs on any x86-64.
#include "decode/resize_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <cstring>

#define FEEDRATE_AVX2 __attribute__((target("avx2")))
#define FEEDRATE_AVX2_INLINE inline __attribute__((target("avx2"), always_inline))

namespace feedrate::decode::kernels {
namespace {

FEEDRATE_AVX2_INLINE __m256 widen8(const std::uint8_t* p) {
  const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
}

// Thirty-two columns at a time, then eight, then the last few through the baseline kernel: each
// value is the same sum of products, in the same order, as in the baseline kernel.
FEEDRATE_AVX2 void vertical(const std::uint8_t* first, std::size_t stride, const float* weights,
                            int taps, int count, float* sums) {
  int x = 0;
  for (; x + 32 <= count; x += 32) {
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    const std::uint8_t* p = first + x;
    for (int k = 0; k < taps; ++k, p += stride) {
      const __m256 w = _mm256_broadcast_ss(weights + k);
      s0 = _mm256_add_ps(s0, _mm256_mul_ps(w, widen8(p)));
      s1 = _mm256_add_ps(s1, _mm256_mul_ps(w, widen8(p + 8)));
      s2 = _mm256_add_ps(s2, _mm256_mul_ps(w, widen8(p + 16)));
      s3 = _mm256_add_ps(s3, _mm256_mul_ps(w, widen8(p + 24)));
    }
    _mm256_storeu_ps(sums + x, s0);
    _mm256_storeu_ps(sums + x + 8, s1);
    _mm256_storeu_ps(sums + x + 16, s2);
    _mm256_storeu_ps(sums + x + 24, s3);
  }
  for (; x + 8 <= count; x += 8) {
    __m256 s = _mm256_setzero_ps();
    const std::uint8_t* p = first + x;
    for (int k = 0; k < taps; ++k, p += stride) {
      s = _mm256_add_ps(s, _mm256_mul_ps(_mm256_broadcast_ss(weights + k), widen8(p)));
    }
    _mm256_storeu_ps(sums + x, s);
  }
  if (x < count) baseline().vertical(first + x, stride, weights, taps, count - x, sums + x);
}

// One pixel of two rows per register: R, G, B and a spare lane for each.
FEEDRATE_AVX2_INLINE __m256 pair(const float* a, const float* b) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(b), 1);
}

// Sums one pixel's taps for two rows at once (the rows share the taps): the same products,
// in the same order, as the baseline's even and odd chains.
FEEDRATE_AVX2_INLINE __m256 pixel_pair(const float* a, const float* b, const float* w, int taps) {
  __m256 even = _mm256_setr_ps(0.5f, 0.5f, 0.5f, 0.0f, 0.5f, 0.5f, 0.5f, 0.0f);
  __m256 odd = _mm256_setzero_ps();
  int k = 0;
  for (; k + 1 < taps; k += 2) {
    even =
        _mm256_add_ps(even, _mm256_mul_ps(_mm256_broadcast_ss(w + k), pair(a + 3 * k, b + 3 * k)));
    odd = _mm256_add_ps(
        odd, _mm256_mul_ps(_mm256_broadcast_ss(w + k + 1), pair(a + 3 * k + 3, b + 3 * k + 3)));
  }
  if (k < taps) {
    even =
        _mm256_add_ps(even, _mm256_mul_ps(_mm256_broadcast_ss(w + k), pair(a + 3 * k, b + 3 * k)));
  }
  return _mm256_add_ps(even, odd);
}

// The same pixel of two rows per register: one broadcast weight serves both rows. Two pixels
// per step share the rounding and packing, and are stored as 4 bytes each (the next pixel
// overwrites the fourth); the row's last two pixels go through the one-pixel kernel, which
// stores 3. kTaps > 0 fixes the tap count at compile time (the loops unroll); 0 reads `taps`.
template <int kTaps>
FEEDRATE_AVX2 void pair_of_rows(const float* sums_a, const float* sums_b, const int* offsets,
                                const float* weights, int any_taps, int width, bool flip,
                                std::uint8_t* out_a, std::uint8_t* out_b) {
  const int taps = kTaps > 0 ? kTaps : any_taps;
  const auto pixel = [&](int d) { return flip ? width - 1 - d : d; };
  int d = 0;
  for (; d + 2 < width; d += 2) {
    const int i0 = pixel(d), i1 = pixel(d + 1);
    const __m256 sum0 = pixel_pair(sums_a + offsets[i0], sums_b + offsets[i0],
                                   weights + static_cast<std::size_t>(i0) * taps, taps);
    const __m256 sum1 = pixel_pair(sums_a + offsets[i1], sums_b + offsets[i1],
                                   weights + static_cast<std::size_t>(i1) * taps, taps);
    const __m256i shorts = _mm256_packs_epi32(_mm256_cvttps_epi32(sum0), _mm256_cvttps_epi32(sum1));
    const __m256i bytes = _mm256_packus_epi16(shorts, shorts);
    const long long row_a = _mm_cvtsi128_si64(_mm256_castsi256_si128(bytes));
    const long long row_b = _mm_cvtsi128_si64(_mm256_extracti128_si256(bytes, 1));
    const std::uint32_t values[4] = {
        static_cast<std::uint32_t>(row_a), static_cast<std::uint32_t>(row_a >> 32),
        static_cast<std::uint32_t>(row_b), static_cast<std::uint32_t>(row_b >> 32)};
    std::memcpy(out_a + 3 * d, &values[0], 4);
    std::memcpy(out_a + 3 * d + 3, &values[1], 4);
    std::memcpy(out_b + 3 * d, &values[2], 4);
    std::memcpy(out_b + 3 * d + 3, &values[3], 4);
  }
  for (; d < width; ++d) {
    const int i = pixel(d);
    const float* w = weights + static_cast<std::size_t>(i) * taps;
    baseline().horizontal(sums_a, offsets + i, w, taps, 1, false, out_a + 3 * d);
    baseline().horizontal(sums_b, offsets + i, w, taps, 1, false, out_b + 3 * d);
  }
}

FEEDRATE_AVX2 void horizontal_pair(const float* sums_a, const float* sums_b, const int* offsets,
                                   const float* weights, int taps, int width, bool flip,
                                   std::uint8_t* out_a, std::uint8_t* out_b) {
  switch (taps) {
    case 2:
      return pair_of_rows<2>(sums_a, sums_b, offsets, weights, taps, width, flip, out_a, out_b);
    case 3:
      return pair_of_rows<3>(sums_a, sums_b, offsets, weights, taps, width, flip, out_a, out_b);
    case 4:
      return pair_of_rows<4>(sums_a, sums_b, offsets, weights, taps, width, flip, out_a, out_b);
    case 5:
      return pair_of_rows<5>(sums_a, sums_b, offsets, weights, taps, width, flip, out_a, out_b);
    case 6:
      return pair_of_rows<6>(sums_a, sums_b, offsets, weights, taps, width, flip, out_a, out_b);
    default:
      return pair_of_rows<0>(sums_a, sums_b, offsets, weights, taps, width, flip, out_a, out_b);
  }
}

}  // namespace

const RowKernels* avx2() {
  static const RowKernels kernels{"avx2", vertical, baseline().horizontal, horizontal_pair};
  static const bool supported = __builtin_cpu_supports("avx2");
  return supported ? &kernels : nullptr;
}

}  // namespace feedrate::decode::kernels

#else

namespace feedrate::decode::kernels {

const RowKernels* avx2() {
  return nullptr;
}

}  // namespace feedrate::decode::kernels

#endif
