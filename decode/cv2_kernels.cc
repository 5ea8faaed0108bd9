#include "decode/cv2_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "decode/cv2_rows.h"

namespace feedrate::decode::cv2 {

namespace {

// One axis of cv::resize's INTER_LINEAR table: the first source index and its two 11-bit
// weights (the second tap is index + 1; its weight is 0 at the borders).
struct LinearTaps {
  std::vector<int> index;
  std::vector<int> w0, w1;
};

LinearTaps linear_taps(int src, int dst) {
  LinearTaps taps;
  taps.index.resize(static_cast<std::size_t>(dst));
  taps.w0.resize(static_cast<std::size_t>(dst));
  taps.w1.resize(static_cast<std::size_t>(dst));
  const double scale = 1.0 / (static_cast<double>(dst) / src);
  for (int d = 0; d < dst; ++d) {
    float f = static_cast<float>((d + 0.5) * scale - 0.5);
    int s = static_cast<int>(std::floor(f));
    f -= static_cast<float>(s);
    if (s < 0) f = 0, s = 0;
    if (s >= src - 1) f = 0, s = src - 1;
    taps.index[d] = s;
    taps.w0[d] = cv_round((1.0f - f) * 2048.0f);
    taps.w1[d] = cv_round(f * 2048.0f);
  }
  return taps;
}

}  // namespace

void resize_linear(const ImageView& src, ImageView dst) {
  const LinearTaps xs = linear_taps(src.width, dst.width);
  const LinearTaps ys = linear_taps(src.height, dst.height);
  const int row = dst.width * 3;
  const std::size_t src_row = static_cast<std::size_t>(src.width) * 3;
  // Each output pixel's taps in a source row: pixels index and index + 1 (whose weight is 0 at
  // the right border).
  std::vector<int> offsets(static_cast<std::size_t>(dst.width));
  std::vector<std::uint32_t> weights(static_cast<std::size_t>(row));
  for (int d = 0; d < dst.width; ++d) {
    offsets[d] = xs.index[d] * 3;
    for (int c = 0; c < 3; ++c) {
      weights[d * 3 + c] = static_cast<std::uint32_t>(xs.w0[d] | xs.w1[d] << 16);
    }
  }
  const rows::Kernels& kernels = rows::best();
  // The row kernels read up to 5 bytes past a row's last pixel: a row with fewer bytes after it
  // in the image (the last, or the one before it in an image 1 pixel wide) is read from a copy
  // with those bytes more.
  std::vector<std::uint8_t> last;
  // Horizontal pass of a source row (weights sum to 2048), shifted right by 4 as the vertical
  // pass takes it (at most 255 * 128).
  std::vector<std::int16_t> rows[2];
  const auto horizontal = [&](int sy, std::vector<std::int16_t>& out) {
    out.resize(static_cast<std::size_t>(row));
    const std::uint8_t* s = src.pixels + static_cast<std::size_t>(sy) * src_row;
    if (static_cast<std::size_t>(src.height - 1 - sy) * src_row < 5) {
      last.assign(s, s + src_row);
      last.resize(src_row + 5);
      s = last.data();
    }
    kernels.pairs(s, offsets.data(), weights.data(), dst.width, 4, out.data());
  };
  // The two rows' horizontal passes, each kept while the next output row needs it (swapped
  // into the other slot where that one does).
  int cached[2] = {-1, -1};
  for (int d = 0; d < dst.height; ++d) {
    const int sy0 = ys.index[d];
    const int sy1 = std::min(sy0 + 1, src.height - 1);
    if (cached[0] != sy0 && cached[1] == sy0) {
      std::swap(rows[0], rows[1]);
      std::swap(cached[0], cached[1]);
    }
    if (cached[0] != sy0) horizontal(sy0, rows[0]);
    cached[0] = sy0;
    const std::int16_t* bottom = rows[0].data();
    if (sy1 != sy0) {
      if (cached[1] != sy1) horizontal(sy1, rows[1]);
      cached[1] = sy1;
      bottom = rows[1].data();
    }
    kernels.resize_vertical(rows[0].data(), bottom, ys.w0[d], ys.w1[d], row,
                            dst.pixels + static_cast<std::size_t>(d) * row);
  }
}

void hsv_lut(ImageView image, double gain_h, double gain_s, double gain_v) {
  rows::best().hsv(image.pixels, static_cast<std::size_t>(image.width) * image.height,
                   rows::hsv_tables(gain_h, gain_s, gain_v));
}

}  // namespace feedrate::decode::cv2
