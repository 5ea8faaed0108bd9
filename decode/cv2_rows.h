// The inner loops of decode/cv2_kernels.h and RandomHSV's tables (internal header), the loops
// with one implementation per instruction set: portable C++ (vectorised by the compiler for the
// build's baseline) and AVX2, chosen once at run time. Every implementation computes the same
// integers and performs the same float operations in the same order (no fused multiply-add), so all
// give the same bytes: an image's augmentation does not depend on the CPU that computed it.
//
// Thread-safety: the kernels and hsv_tables are pure functions; best() is safe to call from any
// thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace feedrate::decode::cv2::rows {

// RandomHSV's conversion tables: RGB2HSV_b's divisions (hsv_shift 12, hue range 180; entry 0
// is 0) and the look-up tables as the floats HSV2RGB starts from (the hue times 6/180, the
// saturation and value over 255). Where the look-ups are simpler functions, checked for every
// entry, a kernel may compute them instead: where hue_turn >= 0, h[x] is the turn
// (x + hue_turn) mod 180 times 6/180; where float_gains, s[x] is min(max(x gain_s, 0), 255) in
// float, truncated, over 255 (v[x] likewise with gain_v).
struct HsvTables {
  std::array<int, 256> sdiv{}, hdiv{};
  std::array<float, 256> h{}, s{}, v{};
  int hue_turn = -1;
  bool float_gains = false;
  float gain_s = 1, gain_v = 1;
};

// The tables of RandomHSV's drawn gains r = uniform(-1, 1) * (hgain, sgain, vgain).
HsvTables hsv_tables(double gain_h, double gain_s, double gain_v);

// RGB2HSV_b, the tables, then HSV2RGB_b's vectorised arithmetic (HSV2RGB_simd: the sector from
// the truncated hue, each value times 255 truncated), in place on `count` packed RGB pixels.
using HsvFn = void (*)(std::uint8_t* pixels, std::size_t count, const HsvTables& tables);

// The horizontal pass of a two-tap (bilinear) blend of packed RGB pixels: output pixel x's
// channel c, out[3 x + c] = (line[o + c] w0 + line[o + 3 + c] w1) >> shift (the same channel
// of the next pixel), where o = offsets[x] and weights[3 x + c] = w0 | w1 << 16 with
// w0, w1 < 2^15, for x < pixels; the caller's weights keep the values within int16. `line`
// must be readable from each offset to offset + 7.
using PairsFn = void (*)(const std::uint8_t* line, const int* offsets, const std::uint32_t* weights,
                         int pixels, int shift, std::int16_t* out);

// warp()'s vertical blend of two horizontal passes (1/32-pixel weights, each value at most
// 32 * 255): out[i] = (top[i] (32 - ay) + bottom[i] ay + 2^9) >> 10, the rounded 15-bit blend.
using WarpVerticalFn = void (*)(const std::int16_t* top, const std::int16_t* bottom, int ay,
                                int count, std::uint8_t* out);

// resize_linear()'s vertical blend (VResizeLinearVec_32s8u) of two horizontal passes with
// 11-bit weights, shifted right by 4: (top b0 >> 16) + (bottom b1 >> 16), rounded >> 2,
// saturated.
using ResizeVerticalFn = void (*)(const std::int16_t* top, const std::int16_t* bottom, int b0,
                                  int b1, int count, std::uint8_t* out);

struct Kernels {
  const char* name;
  HsvFn hsv;
  PairsFn pairs;
  WarpVerticalFn warp_vertical;
  ResizeVerticalFn resize_vertical;
};

// Portable C++.
const Kernels& baseline();

// AVX2, or nullptr where the build or the CPU lacks it.
const Kernels* avx2();

// The fastest set this CPU runs, chosen once.
const Kernels& best();

}  // namespace feedrate::decode::cv2::rows
