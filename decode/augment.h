// The image operations of torchvision's augmentations, on one packed RGB uint8 image (HWC), each
// with its parameters given: what torchvision.transforms.functional computes on a uint8 tensor
// (its tensor backend), in float32 where it does, truncating or rounding as it does.
//
// The random parts (which operation, which magnitude, in which order) live in
// decode/augment_policy.h; these functions draw nothing, so tests can compare each one against
// torchvision with the same parameters. Thread-safety: pure functions of their arguments; an
// AugmentScratch is per thread.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace feedrate::decode {

// A packed RGB image owned by the caller: width * height * 3 bytes, rows without padding.
struct ImageView {
  std::uint8_t* pixels = nullptr;
  int width = 0, height = 0;
};

// The 14 operations of TrivialAugmentWide and RandAugment (in their order), and AutoAugment's
// Invert.
enum class AugmentOp {
  kIdentity,
  kShearX,
  kShearY,
  kTranslateX,
  kTranslateY,
  kRotate,
  kBrightness,
  kColor,
  kContrast,
  kSharpness,
  kPosterize,
  kSolarize,
  kAutoContrast,
  kEqualize,
  kInvert,
};
inline constexpr int kPolicyOpCount = 14;  // kIdentity .. kEqualize

// torchvision's name of `op` ("ShearX", ...).
const char* augment_op_name(AugmentOp op);

// Intermediate buffers reused between calls (one per thread).
struct AugmentScratch {
  std::vector<std::uint8_t> bytes;
};

// autoaugment._apply_op(img, op, magnitude, NEAREST, fill): the magnitude in torchvision's
// units (shear factor, pixels, degrees, factor - 1, bits, threshold on 0..255).
void apply_augment_op(ImageView image, AugmentOp op, double magnitude,
                      const std::array<double, 3>& fill, AugmentScratch& scratch);

// F.hflip / F.vflip.
void flip_horizontal(ImageView image);
void flip_vertical(ImageView image);
// F.rgb_to_grayscale(img, num_output_channels=3).
void to_grayscale(ImageView image);
// F.adjust_brightness / adjust_contrast / adjust_saturation / adjust_hue / adjust_sharpness.
void adjust_brightness(ImageView image, double factor);
void adjust_contrast(ImageView image, double factor);
void adjust_saturation(ImageView image, double factor);
void adjust_hue(ImageView image, double hue_factor);
void adjust_sharpness(ImageView image, double factor, AugmentScratch& scratch);
// F.permute_channels (v2): output channel c is input channel permutation[c].
void permute_channels(ImageView image, const std::array<int, 3>& permutation);
// F.posterize (bits 0..8), F.solarize, F.invert, F.autocontrast, F.equalize.
void posterize(ImageView image, int bits);
void solarize(ImageView image, double threshold);
void invert(ImageView image);
void autocontrast(ImageView image);
void equalize(ImageView image);

// F.affine's inverse matrix convention: the source point of output pixel centre (x, y), both
// measured from the image centre, is (m[0] x + m[1] y + m[2], m[3] x + m[4] y + m[5]). Nearest
// sampling; an output pixel whose source falls outside the image gets `fill` (rounded).
void affine_nearest(ImageView image, const std::array<double, 6>& inverse,
                    const std::array<double, 3>& fill, AugmentScratch& scratch);

// torchvision.transforms.functional._get_inverse_affine_matrix for the tensor backend (centre
// given relative to the image centre): angle and shear in degrees.
std::array<double, 6> inverse_affine_matrix(double center_x, double center_y, double angle,
                                            double translate_x, double translate_y, double scale,
                                            double shear_x, double shear_y);

}  // namespace feedrate::decode
