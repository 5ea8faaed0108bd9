#include "bench/micro/nvjpeg_probe/pixels.h"

#include <turbojpeg.h>

#include <algorithm>
#include <cstdlib>

namespace feedrate::probe {

PixelDifference compare_with_turbo(const std::vector<Jpeg>& jpegs,
                                   const std::vector<std::size_t>& use,
                                   const std::vector<std::vector<unsigned char>>& pixels,
                                   int flags) {
  PixelDifference diff;
  tjhandle turbo = tjInitDecompress();
  std::vector<unsigned char> reference;
  double sum = 0;
  std::size_t values = 0;
  for (std::size_t k = 0; k < pixels.size() && k < use.size(); ++k) {
    const Jpeg& jpeg = jpegs[use[k]];
    reference.resize(static_cast<std::size_t>(jpeg.width) * jpeg.height * 3);
    if (tjDecompress2(turbo, jpeg.bytes.data(), jpeg.bytes.size(), reference.data(), jpeg.width, 0,
                      jpeg.height, TJPF_RGB, flags) != 0 ||
        pixels[k].size() != reference.size()) {
      continue;
    }
    for (std::size_t i = 0; i < reference.size(); ++i) {
      const int d = std::abs(static_cast<int>(pixels[k][i]) - static_cast<int>(reference[i]));
      diff.max = std::max(diff.max, d);
      sum += d;
    }
    values += reference.size();
    ++diff.images;
  }
  tjDestroy(turbo);
  diff.mean = values > 0 ? sum / static_cast<double>(values) : 0;
  return diff;
}

}  // namespace feedrate::probe
