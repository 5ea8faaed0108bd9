// The conversion of decoded images (packed RGB, HWC uint8) into the float CHW that ToTensor
// followed by Normalize computes: ((x / 255) - mean) / std, with a Normalization
// (feedrate/decode_spec.h: ImageNet's by default). The one Normalization of a run is its
// transform's (TransformSpec::normalization);
// the device copier gets a copy of it. Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "feedrate/decode_spec.h"

namespace feedrate::decode {

// Writes `pixels` RGB pixels from `hwc` to three planes of `chw` (R plane, then G, then B).
void hwc_to_chw_normalized(const std::uint8_t* hwc, std::size_t pixels,
                           const Normalization& normalization, float* chw);

}  // namespace feedrate::decode
