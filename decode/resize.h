// Antialiased resampling, the filters of PIL and of torchvision's Resize with antialias=True:
// a triangle (bilinear) or cubic (bicubic, a = -0.5) filter widened by the downscale factor,
// applied vertically then horizontally, producing one window of the resized image, optionally
// mirrored left-right. Bicubic's negative lobes may overshoot; the output saturates to 0..255.
//
// The inner loops (decode/resize_kernels.h) run with AVX2 where the CPU has it, else SSE2, and
// give the same bytes either way. A Resampler keeps its filter tables and intermediate rows
// between calls, so after the first few images it allocates nothing. Thread-safety: one
// Resampler per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "decode/transform.h"

namespace feedrate::decode {

// The source rectangle [x0, x1) x [y0, y1) the filter reads.
struct SourceRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

class Resampler {
 public:
  // The instruction set of the inner loops on this CPU: "avx2", "sse2" or "generic".
  static const char* kernels();

  // Builds the filter taps of `plan` (in the coordinates of the image it will be given) and
  // returns the source pixels they read.
  SourceRect prepare(const ResizePlan& plan);

  // Resamples RGB `src`, whose first pixel is source pixel (src_x0, src_y0) and which covers
  // at least the rectangle prepare() returned, into `dst`: win_h rows of win_w packed RGB.
  void run(const std::uint8_t* src, std::size_t src_stride, int src_x0, int src_y0,
           std::uint8_t* dst);

 private:
  struct Taps {
    std::vector<int> first;      // first source index per output index
    std::vector<int> count;      // taps per output index
    std::vector<float> weights;  // max_taps per output index, normalised to sum 1
    int max_taps = 0;
  };
  static void build(Taps& taps, Interpolation interpolation, double box_start, double box_len,
                    int out_len, int win_start, int win_len, int clip_lo, int clip_hi);

  Taps horizontal_, vertical_;
  std::vector<float> column_sums_;  // two vertically filtered rows, RGB float, zero padded
  std::vector<int> tap_offsets_;    // per output pixel, its first tap's float in column_sums_
  int win_w_ = 0, win_h_ = 0;
  int cols_x0_ = 0, cols_x1_ = 0;  // source columns the horizontal taps read
  bool flip_ = false;
};

}  // namespace feedrate::decode
