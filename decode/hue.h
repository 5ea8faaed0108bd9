// torchvision's adjust_hue on a packed RGB uint8 image: each pixel to HSV, the hue shifted
// (modulo 1), back to RGB, in float32. v1 (transforms.functional_tensor) and v2
// (transforms.v2.functional._color) do it with different float32 arithmetic, so each has its
// variant: v1 scales by x / 255 in and truncates x * 255 out, divides the hue sum by 6 and
// computes t = v (1 - s (1 - f)); v2 scales by x * (1 / 255) in and truncates
// x * (256 - 1e-3) out (to_dtype's scale), multiplies by 1 / 6 and computes
// t = (s f + (1 - s)) v. decode/augment.h's adjust_hue is v1's. Thread-safety: pure function.
#pragma once

#include "decode/augment.h"

namespace feedrate::decode {

enum class HueArithmetic { kV1, kV2 };

// hue_factor in [-0.5, 0.5].
void shift_hue(ImageView image, double hue_factor, HueArithmetic arithmetic);

}  // namespace feedrate::decode
