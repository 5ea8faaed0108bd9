// Internal: JPEG encoding through the libjpeg API, for what TurboJPEG 2.x cannot express
// (restart intervals). Reentrant; each call uses its own compressor.
#pragma once

#include <vector>

#include "bench/datagen/datagen.h"

namespace feedrate::datagen {

// Encodes `pixels`, laid out as spec.color implies (1 byte per pixel for kGray, 3 for kRgb,
// 4 for kCmyk in the Adobe inverted convention), with the same settings as the TurboJPEG path plus
// spec.restart_interval_rows. Throws std::runtime_error with libjpeg's message on failure.
std::vector<unsigned char> encode_with_libjpeg(const unsigned char* pixels, const JpegSpec& spec);

}  // namespace feedrate::datagen
