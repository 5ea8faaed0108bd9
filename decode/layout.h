// Output layouts. Images are produced as packed RGB (HWC uint8); training code often wants
// float32 CHW normalised with a per-channel mean and std, as torchvision's ToTensor followed by
// Normalize computes ((x / 255) - mean) / std. Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace feedrate::decode {

struct Normalization {
  std::array<float, 3> mean{0.485f, 0.456f, 0.406f};  // ImageNet, on the 0..1 scale
  std::array<float, 3> std{0.229f, 0.224f, 0.225f};
};

// Writes `pixels` RGB pixels from `hwc` to three planes of `chw` (R plane, then G, then B).
void hwc_to_chw_normalized(const std::uint8_t* hwc, std::size_t pixels,
                           const Normalization& normalization, float* chw);

}  // namespace feedrate::decode
