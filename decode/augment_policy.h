// The random side of stage 2 and 3 of a TransformSpec (decode/transform.h): what torchvision's
// RandomHorizontalFlip, RandomVerticalFlip, RandomGrayscale, ColorJitter, TrivialAugmentWide,
// RandAugment, AutoAugment (ImageNet policy) and RandomErasing draw, with their distributions,
// drawn from a feedrate Rng instead of torch's generator; then applied with decode/augment.h.
//
// The sample_*() functions return the drawn parameters so that tests can check the
// distributions and compare the operations against torchvision with the same parameters.
// Thread-safety: pure functions of their arguments (the Rng is the caller's).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "decode/augment.h"
#include "decode/random.h"
#include "decode/transform.h"

namespace feedrate::decode {

struct SampledOp {
  AugmentOp op = AugmentOp::kIdentity;
  double magnitude = 0;  // signed, in torchvision's units (see apply_augment_op)
};

// torch.linspace(start, end, steps)[index] in float32, as torch computes it.
double torch_linspace(double start, double end, int steps, int index);

// The magnitude of bin `bin` of `op` (unsigned) and whether the op is signed, in the
// augmentation space of `policy` (TrivialAugmentWide, RandAugment or AutoAugment) for an image
// of width x height.
struct OpMagnitude {
  double value = 0;
  bool signed_op = false;
};
OpMagnitude op_magnitude(PixelStep::Kind policy, AugmentOp op, int bin, int num_bins, int width,
                         int height);

// TrivialAugmentWide.forward: one uniform op, a uniform bin, a fair sign (signed ops only).
SampledOp sample_trivial_augment_wide(const PixelStep& step, int width, int height, Rng& rng);
// RandAugment.forward: num_ops uniform ops at bin `magnitude`, each with a fair sign.
std::vector<SampledOp> sample_rand_augment(const PixelStep& step, int width, int height, Rng& rng);
// AutoAugment(IMAGENET).forward: one of its 25 sub-policies; each of its two ops applies with
// its probability and, signed, is negated with probability 1/2. Returns the ops that apply.
std::vector<SampledOp> sample_auto_augment(int width, int height, Rng& rng);

// ColorJitter.get_params: a random order of the four adjustments and their factors; an
// adjustment whose range is its identity ({1, 1}, hue {0, 0}) is skipped and draws nothing.
struct ColorJitterParams {
  std::array<int, 4> order{0, 1, 2, 3};  // 0 brightness, 1 contrast, 2 saturation, 3 hue
  std::array<bool, 4> active{};
  std::array<double, 4> factor{1, 1, 1, 0};
};
ColorJitterParams sample_color_jitter(const PixelStep& step, Rng& rng);
void apply_color_jitter(ImageView image, const ColorJitterParams& params);

// Runs stage 2 of `spec` on `image` (spec.size squared), drawing from
// Rng(pixel_stream_seed(sample_seed)).
void apply_pixel_steps(const TransformSpec& spec, std::uint64_t sample_seed, ImageView image,
                       AugmentScratch& scratch);

// RandomErasing.get_params: the box to erase, or none (applied false) when the draw against p
// fails or no box fits in 10 attempts (torchvision then returns the image unchanged).
struct EraseBox {
  bool applied = false;
  int top = 0, left = 0, height = 0, width = 0;
};
EraseBox sample_erase(const EraseSpec& erase, int width, int height, Rng& rng);

// Stage 3's erasing on a delivered sample (size x size), drawing from
// Rng(output_stream_seed(sample_seed)): float planes (CHW, after Normalize) or uint8 HWC.
// value="random" fills standard normal values (floats; the loader refuses it on uint8).
void erase_float_chw(const EraseSpec& erase, std::uint64_t sample_seed, int size, float* chw);
void erase_uint8_hwc(const EraseSpec& erase, std::uint64_t sample_seed, int size,
                     std::uint8_t* hwc);

}  // namespace feedrate::decode
