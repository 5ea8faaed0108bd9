// The probe's decoded pixels against libjpeg-turbo's (bench/micro/nvjpeg_probe): the largest and
// the mean absolute difference of every channel of every pixel, against tjDecompress2 (TJPF_RGB)
// with the given TurboJPEG flags. Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <vector>

#include "bench/micro/nvjpeg_probe/probe.h"

namespace feedrate::probe {

struct PixelDifference {
  std::size_t images = 0;
  int max = 0;
  double mean = 0;
};

// `pixels[k]`: the RGB decode of jpegs[use[k]]; images whose reference decode fails are skipped.
PixelDifference compare_with_turbo(const std::vector<Jpeg>& jpegs,
                                   const std::vector<std::size_t>& use,
                                   const std::vector<std::vector<unsigned char>>& pixels,
                                   int flags);

}  // namespace feedrate::probe
