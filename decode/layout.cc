#include "decode/layout.h"

namespace feedrate::decode {

void hwc_to_chw_normalized(const std::uint8_t* hwc, std::size_t pixels,
                           const Normalization& normalization, float* chw) {
  for (int c = 0; c < 3; ++c) {
    // ((x / 255) - mean) / std == x * scale + bias: a multiply, then an add, each rounded (no
    // FMA), as the CUDA kernel (gpu/cuda_backend.cu) rounds them too.
    const float scale = 1.0f / (255.0f * normalization.std[c]);
    const float bias = -normalization.mean[c] / normalization.std[c];
    float* plane = chw + static_cast<std::size_t>(c) * pixels;
    for (std::size_t i = 0; i < pixels; ++i) plane[i] = hwc[3 * i + c] * scale + bias;
  }
}

}  // namespace feedrate::decode
