// The pixel kernels of torchvision.transforms.v2's RandomPhotometricDistort that differ from
// the v1 functions of decode/augment.h, on one packed RGB uint8 image: v2's adjust_hue (its
// float conversion multiplies by 1/255, its HSV arithmetic is ordered differently, and it
// converts back with x * (256 - 1e-3) truncated, where v1 truncates x * 255) and
// permute_channels. Brightness, contrast and saturation compute the same bytes in v1 and v2 and
// stay in decode/augment.h. Thread-safety: pure functions of their arguments.
#pragma once

#include <array>

#include "decode/augment.h"

namespace feedrate::decode {

// torchvision.transforms.v2.functional.adjust_hue_image on uint8; hue_factor in [-0.5, 0.5].
void adjust_hue_v2(ImageView image, double hue_factor);

// F.permute_channels: output channel c is input channel permutation[c].
void permute_channels(ImageView image, const std::array<int, 3>& permutation);

}  // namespace feedrate::decode
