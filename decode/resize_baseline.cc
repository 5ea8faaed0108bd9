#include <cstring>

#include "decode/resize_kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace feedrate::decode::kernels {
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

// Sixteen columns at a time, summed over the taps in registers and stored once.
void vertical(const std::uint8_t* first, std::size_t stride, const float* weights, int taps,
              int count, float* sums) {
  int x = 0;
  for (; x + 16 <= count; x += 16) {
    Float4 s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0;
    const std::uint8_t* p = first + x;
    for (int k = 0; k < taps; ++k, p += stride) {
      Float4 v0, v1, v2, v3;
      widen16(p, v0, v1, v2, v3);
      const float w = weights[k];
      s0 += w * v0;
      s1 += w * v1;
      s2 += w * v2;
      s3 += w * v3;
    }
    std::memcpy(sums + x, &s0, sizeof(s0));
    std::memcpy(sums + x + 4, &s1, sizeof(s1));
    std::memcpy(sums + x + 8, &s2, sizeof(s2));
    std::memcpy(sums + x + 12, &s3, sizeof(s3));
  }
  for (; x < count; ++x) {
    float sum = 0;
    const std::uint8_t* p = first + x;
    for (int k = 0; k < taps; ++k, p += stride) sum += weights[k] * static_cast<float>(*p);
    sums[x] = sum;
  }
}

// Each output pixel is one 4-lane register holding R, G, B and the next pixel's R (ignored).
// Pixels are produced in the order they are stored, two at a time with two accumulators each,
// so that four chains of dependent additions overlap. Each pixel is stored as 4 bytes whose
// last one the next pixel overwrites (not the row's last).
void horizontal(const float* sums, const int* offsets, const float* weights, int taps, int width,
                bool flip, std::uint8_t* out) {
  const Float4 half = {0.5f, 0.5f, 0.5f, 0.0f};
  const Float4 zero = {0, 0, 0, 0};
  const auto pixel = [&](int d) { return flip ? width - 1 - d : d; };
  int d = 0;
  for (; d + 1 < width; d += 2) {
    const int i0 = pixel(d), i1 = pixel(d + 1);
    const float* p0 = sums + offsets[i0];
    const float* p1 = sums + offsets[i1];
    const float* w0 = weights + static_cast<std::size_t>(i0) * taps;
    const float* w1 = weights + static_cast<std::size_t>(i1) * taps;
    Float4 even0 = half, odd0 = zero, even1 = half, odd1 = zero;
    int k = 0;
    for (; k + 1 < taps; k += 2) {
      even0 += w0[k] * load4(p0 + 3 * k);
      odd0 += w0[k + 1] * load4(p0 + 3 * k + 3);
      even1 += w1[k] * load4(p1 + 3 * k);
      odd1 += w1[k + 1] * load4(p1 + 3 * k + 3);
    }
    if (k < taps) {
      even0 += w0[k] * load4(p0 + 3 * k);
      even1 += w1[k] * load4(p1 + 3 * k);
    }
    const Bytes4 first_value = to_bytes(even0 + odd0), second_value = to_bytes(even1 + odd1);
    std::memcpy(out + 3 * d, &first_value, 4);
    std::memcpy(out + 3 * d + 3, &second_value, d + 2 < width ? 4 : 3);
  }
  if (d < width) {
    const int i = pixel(d);
    const float* p = sums + offsets[i];
    const float* w = weights + static_cast<std::size_t>(i) * taps;
    Float4 even = half, odd = zero;
    int k = 0;
    for (; k + 1 < taps; k += 2) {
      even += w[k] * load4(p + 3 * k);
      odd += w[k + 1] * load4(p + 3 * k + 3);
    }
    if (k < taps) even += w[k] * load4(p + 3 * k);
    const Bytes4 value = to_bytes(even + odd);
    std::memcpy(out + 3 * d, &value, 3);
  }
}

void horizontal_pair(const float* sums_a, const float* sums_b, const int* offsets,
                     const float* weights, int taps, int width, bool flip, std::uint8_t* out_a,
                     std::uint8_t* out_b) {
  horizontal(sums_a, offsets, weights, taps, width, flip, out_a);
  horizontal(sums_b, offsets, weights, taps, width, flip, out_b);
}

}  // namespace

const RowKernels& baseline() {
#if defined(__SSE2__)
  static const RowKernels kernels{"sse2", vertical, horizontal, horizontal_pair};
#else
  static const RowKernels kernels{"generic", vertical, horizontal, horizontal_pair};
#endif
  return kernels;
}

const RowKernels& best() {
  static const RowKernels& chosen = avx2() != nullptr ? *avx2() : baseline();
  return chosen;
}

}  // namespace feedrate::decode::kernels
