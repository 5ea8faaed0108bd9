// The two inner loops of decode::Resampler, one implementation per instruction set (internal
// header). Every implementation performs the same float operations in the same order on every
// value (a multiply, then an add; never a fused multiply-add), so all of them produce the same
// bytes: the output of a seed does not depend on the CPU that computed it.
//
// Thread-safety: the kernels are pure functions; kernels() is safe to call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace feedrate::decode::kernels {

// One output row of the vertical pass: sums[x] = sum over k < taps of
// weights[k] * first[k * stride + x], for x < count, the taps added in order from 0.
using VerticalFn = void (*)(const std::uint8_t* first, std::size_t stride, const float* weights,
                            int taps, int count, float* sums);

// One output row of the horizontal pass: pixel d (stored at out + 3 d) is output pixel
// i = flip ? width - 1 - d : d, the rounded, saturated sum of weights[i * taps + k] times the
// RGB float triple at sums + offsets[i] + 3 k, for k < taps. `sums` must be readable for
// 3 taps + 1 floats past the last offset. Even taps and odd taps are summed apart, the even
// chain starting at 0.5 (round to nearest by truncation), then added.
using HorizontalFn = void (*)(const float* sums, const int* offsets, const float* weights, int taps,
                              int width, bool flip, std::uint8_t* out);

// The horizontal pass of two rows that share their taps (consecutive output rows).
using HorizontalPairFn = void (*)(const float* sums_a, const float* sums_b, const int* offsets,
                                  const float* weights, int taps, int width, bool flip,
                                  std::uint8_t* out_a, std::uint8_t* out_b);

struct RowKernels {
  const char* name;
  VerticalFn vertical;
  HorizontalFn horizontal;
  HorizontalPairFn horizontal_pair;
};

// SSE2 on x86-64 (part of the baseline), GCC/Clang vector extensions elsewhere.
const RowKernels& baseline();

// AVX2 (8 floats per operation), or nullptr where the build or the CPU lacks it.
const RowKernels* avx2();

// The fastest set this CPU runs, chosen once.
const RowKernels& best();

}  // namespace feedrate::decode::kernels
