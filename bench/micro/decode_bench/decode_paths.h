// feedrate-decode-bench's one-thread measurements of decode/ (main.cc lists them):
//   1  full_decode()        decode_full against tjbench, image by image;
//   2  train_path()         the train path (ROI decode, DCT scaling) against decode_full and
//                           the same resampler over the crop, same crops;
//   2b packed_train_path()  the train path on packed JPEGs against the originals, same crops.
// Thread-safety: reentrant; everything runs on the caller's thread.
#pragma once

#include <string>
#include <vector>

#include "bench/micro/decode_bench/images.h"
#include "bench/micro/decode_bench/settings.h"
#include "bench/micro/decode_bench/timing.h"

namespace feedrate::decode_bench {

Row full_decode(const std::vector<Image>& images, const std::string& tjbench, const Args& args);

// `scaled_share` gets the share of the crops decoded with DCT scaling.
Row train_path(const std::vector<Image>& images, const Args& args, double* scaled_share);

// `read_share` gets the share of the entropy-coded bytes the packed decodes read.
Row packed_train_path(const std::vector<Image>& images, const Args& args, double* read_share);

}  // namespace feedrate::decode_bench
