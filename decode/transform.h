// The plan of a transform: the seeds of its stages and the ResizePlan of its geometry. The spec
// itself, TransformSpec (its three stages, the one description of a transform, read and written
// as text by decode/transform_text.h), is a plain type of the public API, feedrate/decode_spec.h;
// stage 2 runs in decode/augment_policy.h.
// Stage 1 draws from Rng(sample_seed), stage 2 and 3 from streams derived from it
// (pixel_stream_seed, output_stream_seed), so adding a pixel step never moves a crop.
//
// The geometry becomes one ResizePlan: a source box, the size the box is resized to (possibly
// larger than the output, for eval), the output window inside that resized image, and the
// source rectangle the resampling filter may read. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "decode/random.h"
#include "feedrate/decode_spec.h"

namespace feedrate::decode {

// The seeds of stage 2 and stage 3 for a sample whose stage-1 seed is `sample_seed`.
constexpr std::uint64_t pixel_stream_seed(std::uint64_t sample_seed) {
  return mix64(sample_seed ^ 0x70697865'6c737465ULL);
}
constexpr std::uint64_t output_stream_seed(std::uint64_t sample_seed) {
  return mix64(sample_seed ^ 0x6f757470'75747374ULL);
}

// Python's round(): halves go to the even neighbour, as torch's .round() (the default
// FE_TONEAREST mode). A float argument converts exactly, so it rounds as torch rounds a float32.
int py_round(double x);

// torchvision's ImageNet evaluation convention for an output of `size`: Resize(size * 256 / 224)
// before CenterCrop(size) (256 for 224).
int eval_resize_for(int size);

// Returns an empty string when the spec is valid, else what is wrong (naming the field): a size
// below 1, fields that contradict each other (scale_min > scale_max, ratio_min > ratio_max, an
// eval resize below size), a flip probability outside [0, 1] and the pixel and erase steps'
// parameters. The fields' ranges are the loader's option table's
// (loader/pipeline/option_bounds.h), checked by resolve().
std::string validate(const TransformSpec& spec);

struct ResizePlan {
  // Source box in source pixels; it is resized to out_w x out_h.
  double box_x = 0, box_y = 0, box_w = 0, box_h = 0;
  int out_w = 0, out_h = 0;
  // The delivered window [win_x, win_x + size) x [win_y, win_y + size) of the resized box.
  int win_x = 0, win_y = 0, win_w = 0, win_h = 0;
  // The filter reads source pixels only inside [clip_x0, clip_x1) x [clip_y0, clip_y1):
  // the crop for train (torchvision crops, then resizes), the whole image for eval.
  int clip_x0 = 0, clip_y0 = 0, clip_x1 = 0, clip_y1 = 0;
  bool flip = false;
  Interpolation interpolation = Interpolation::kBilinear;
};

// A crop rectangle in pixels.
struct CropBox {
  int x = 0, y = 0, w = 0, h = 0;
};

// torchvision's RandomResizedCrop.get_params (v1 and v2 alike): up to 10 draws of an area in
// `scale` of the image's and a log-uniform aspect ratio in `ratio`, else a centre crop with
// the ratio clamped into range.
CropBox random_resized_crop(double scale_min, double scale_max, double ratio_min, double ratio_max,
                            int width, int height, Rng& rng);

// torchvision's Resize(size, max_size) with an int: the shorter side becomes `size`, the longer
// one size * long / short, truncated; with max_size > 0 and a longer side above it, the longer
// side becomes max_size and the shorter one shrinks with it (truncated). Returns {width, height}.
std::pair<int, int> shorter_side_size(int width, int height, int size, int max_size = 0);

// `rng` is consumed only by the train transform, in torchvision's order (crop, then flip).
ResizePlan plan_transform(const TransformSpec& spec, int width, int height, Rng& rng);

// Scales a plan to a DCT-scaled decode of the same image (sx = scaled_width / width).
ResizePlan scale_plan(const ResizePlan& plan, double sx, double sy, int scaled_width,
                      int scaled_height);

}  // namespace feedrate::decode
