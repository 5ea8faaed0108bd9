// Augmentation parameters with torchvision semantics: the one description of a transform
// (decode/transform_text.h reads and writes it as text), and the plan of its geometric part.
//
// A spec has three stages, run in this order:
//   1. geometry, fused into the decode (the decoder reads only what the window needs):
//        train: RandomResizedCrop(size, scale, ratio, interpolation), then
//               RandomHorizontalFlip(flip_probability)
//        eval:  Resize(resize, interpolation) (shorter side), then CenterCrop(size)
//   2. pixel steps on the size x size uint8 RGB image, in order (decode/augment_policy.h):
//      flips, RandomGrayscale, ColorJitter, TrivialAugmentWide, RandAugment, AutoAugment;
//   3. on the delivered output: Normalize (float layouts) and RandomErasing.
// Stage 1 draws from Rng(sample_seed), stage 2 and 3 from streams derived from it
// (pixel_stream_seed, output_stream_seed), so adding a pixel step never moves a crop.
//
// The geometry becomes one ResizePlan: a source box, the size the box is resized to (possibly
// larger than the output, for eval), the output window inside that resized image, and the
// source rectangle the resampling filter may read. Thread-safety: pure functions.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "decode/layout.h"
#include "decode/random.h"

namespace feedrate::decode {

enum class TransformKind { kTrain, kEval };

// torchvision's InterpolationMode for the resize: both antialiased, as PIL's filters.
enum class Interpolation { kBilinear, kBicubic };

// One step of stage 2, with torchvision's parameters.
struct PixelStep {
  enum class Kind {
    kHorizontalFlip,      // RandomHorizontalFlip(p)
    kVerticalFlip,        // RandomVerticalFlip(p)
    kGrayscale,           // RandomGrayscale(p)
    kColorJitter,         // ColorJitter(brightness, contrast, saturation, hue), random order
    kTrivialAugmentWide,  // TrivialAugmentWide(num_magnitude_bins, fill)
    kRandAugment,         // RandAugment(num_ops, magnitude, num_magnitude_bins, fill)
    kAutoAugment,         // AutoAugment(AutoAugmentPolicy.IMAGENET, fill)
  };
  Kind kind = Kind::kHorizontalFlip;
  double p = 0.5;  // flips and grayscale
  // ColorJitter's factor ranges [low, high]; an absent one is {1, 1} ({0, 0} for hue).
  std::array<double, 2> brightness{1, 1}, contrast{1, 1}, saturation{1, 1}, hue{0, 0};
  int num_ops = 2, magnitude = 9, num_bins = 31;  // policies (num_bins: 31, AutoAugment's 10)
  std::array<double, 3> fill{0, 0, 0};            // geometric policy ops: outside the image
};

// RandomErasing(p, scale, ratio, value) on the delivered output (after Normalize on floats).
struct EraseSpec {
  double p = 0;  // 0: no erasing
  double scale_min = 0.02, scale_max = 0.33;
  double ratio_min = 0.3, ratio_max = 3.3;
  bool random_value = false;      // value="random": standard normal values (float layouts)
  std::array<double, 3> value{};  // else this value per channel (in the output's units)
};

struct TransformSpec {
  TransformKind kind = TransformKind::kTrain;
  int size = 224;    // output is size x size
  int resize = 256;  // eval: shorter side before the centre crop; >= size
  double scale_min = 0.08, scale_max = 1.0;
  double ratio_min = 3.0 / 4.0, ratio_max = 4.0 / 3.0;
  double flip_probability = 0.5;  // train only: the horizontal flip fused into the resize
  Interpolation interpolation = Interpolation::kBilinear;
  std::vector<PixelStep> pixel_steps;  // stage 2, in order
  bool normalize = false;  // the spec names Normalize, which needs a float layout
  // What float layouts are normalised with, whether the spec names Normalize or not (a float
  // layout is always normalised, as ToTensor + Normalize): the run's one mean and std.
  Normalization normalization;
  EraseSpec erase;
};

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
// (include/feedrate/option_bounds.h), checked by resolve().
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

// `rng` is consumed only by the train transform, in torchvision's order (crop, then flip).
ResizePlan plan_transform(const TransformSpec& spec, int width, int height, Rng& rng);

// Scales a plan to a DCT-scaled decode of the same image (sx = scaled_width / width).
ResizePlan scale_plan(const ResizePlan& plan, double sx, double sy, int scaled_width,
                      int scaled_height);

}  // namespace feedrate::decode
