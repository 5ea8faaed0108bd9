// feedrate-decode-bench's measurement 4, the cost of each DCT scale: does the decoder's choice
// of scale (the smallest of decode::kDctScaleDenominators that keeps enough pixels) stay the
// cheapest such factor?
// Thread-safety: reentrant; everything runs on the caller's thread.
#pragma once

#include <vector>

#include "bench/micro/decode_bench/images.h"
#include "bench/micro/decode_bench/settings.h"
#include "bench/micro/decode_bench/timing.h"

namespace feedrate::decode_bench {

// 4. Whole-image decodes at scale num/8 for num = 1..8, through libjpeg with the decoder's
// settings (ISLOW IDCT, fancy upsampling, RGB), every factor timed over all the images in turn:
// the decode alone, and the decode followed by the resize to the largest output the decoder
// would still decode at 1/2 (the scaled image keeps 1.5x its pixels per side), where the choice
// between 1/2 and the larger factors is made.
struct ScaleCost {
  int num = 8;                             // the factor is num/8
  std::vector<double> decode_runs;         // images/s per repeat
  std::vector<double> decode_resize_runs;  // images/s per repeat
  bool keeps_enough = false;               // for that output, at the first image's size
  double decode_rate() const { return median(decode_runs); }
  double decode_resize_rate() const { return median(decode_resize_runs); }
};

// The output the decoder would still decode at 1/2: ceil(side / 2) >= bound x output side.
int half_scale_output(int side);

// The eight factors, in order (costs[7] is 8/8, the full size).
std::vector<ScaleCost> scale_costs(const std::vector<Image>& images, const Args& args);

// Whether the decoder may pick num/8 (one of decode::kDctScaleDenominators).
bool decoder_candidate(int num);

// Whether 1/2, the decoder's pick at that output, is the cheapest factor that keeps enough
// pixels there (decode + resize).
bool half_is_cheapest(const std::vector<ScaleCost>& costs);

}  // namespace feedrate::decode_bench
