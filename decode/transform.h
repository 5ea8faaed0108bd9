// Augmentation parameters with torchvision semantics, as a plan that the decoder executes.
//
//   train: RandomResizedCrop(size, scale, ratio) then RandomHorizontalFlip(flip_probability)
//   eval:  Resize(resize) (shorter side) then CenterCrop(size)
//
// Both become one ResizePlan: a source box, the size the box is resized to (possibly larger
// than the output, for eval), the output window inside that resized image, and the source
// rectangle the resampling filter may read. The decoder uses the plan to decode only the
// rows and columns that the window needs. Thread-safety: pure functions.
#pragma once

#include <string>

#include "decode/random.h"

namespace feedrate::decode {

enum class TransformKind { kTrain, kEval };

struct TransformSpec {
  TransformKind kind = TransformKind::kTrain;
  int size = 224;    // output is size x size
  int resize = 256;  // eval: shorter side before the centre crop; >= size
  double scale_min = 0.08, scale_max = 1.0;
  double ratio_min = 3.0 / 4.0, ratio_max = 4.0 / 3.0;
  double flip_probability = 0.5;
};

// torchvision's ImageNet evaluation convention for an output of `size`: Resize(size * 256 / 224)
// before CenterCrop(size) (256 for 224).
int eval_resize_for(int size);

// Returns an empty string when the spec is valid, else what is wrong (naming the field).
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
};

// `rng` is consumed only by the train transform, in torchvision's order (crop, then flip).
ResizePlan plan_transform(const TransformSpec& spec, int width, int height, Rng& rng);

// Scales a plan to a DCT-scaled decode of the same image (sx = scaled_width / width).
ResizePlan scale_plan(const ResizePlan& plan, double sx, double sy, int scaled_width,
                      int scaled_height);

}  // namespace feedrate::decode
