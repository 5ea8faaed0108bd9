// Normalization: the per-channel mean and std of torchvision's Normalize (ImageNet's by default,
// written once here), and the conversion of decoded images (packed RGB, HWC uint8) into the
// float CHW that ToTensor followed by Normalize computes: ((x / 255) - mean) / std. The one
// Normalization of a run is its transform's (decode/transform.h's TransformSpec::normalization);
// the device copier gets a copy of it. Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace feedrate::decode {

// ImageNet's, on the 0..1 scale: torchvision's reference recipes and its pretrained weights.
inline constexpr std::array<float, 3> kImageNetMean{0.485f, 0.456f, 0.406f};
inline constexpr std::array<float, 3> kImageNetStd{0.229f, 0.224f, 0.225f};

struct Normalization {
  std::array<float, 3> mean = kImageNetMean;
  std::array<float, 3> std = kImageNetStd;
};

// Writes `pixels` RGB pixels from `hwc` to three planes of `chw` (R plane, then G, then B).
void hwc_to_chw_normalized(const std::uint8_t* hwc, std::size_t pixels,
                           const Normalization& normalization, float* chw);

}  // namespace feedrate::decode
