// What each sample becomes: the transform (augmentation parameters with torchvision
// semantics), the normalization of float layouts and the policy on JPEG warnings. Plain values
// that LoaderOptions carries and the decode stage reads: the one definition of each, so the
// public API owns them and decode/ includes this header (tests/layering allows decode/ this
// header of the public API and no other).
//
// A spec has three stages, run in this order (decode/transform.h plans them):
//   1. geometry, fused into the decode (the decoder reads only what the window needs):
//        train: RandomResizedCrop(size, scale, ratio, interpolation), then
//               RandomHorizontalFlip(flip_probability)
//        eval:  Resize(resize, interpolation) (shorter side), then CenterCrop(size)
//   2. pixel steps on the size x size uint8 RGB image, in order: flips, RandomGrayscale,
//      ColorJitter, TrivialAugmentWide, RandAugment, AutoAugment;
//   3. on the delivered output: Normalize (float layouts) and RandomErasing.
// Its text form ("train", "rrc(176),hflip,ta_wide,normalize,erase(0.1)") is read by
// feedrate::parse_transform() (feedrate/options.h). Thread-safety: plain values.
#pragma once

#include <array>
#include <vector>

namespace feedrate {

// ImageNet's, on the 0..1 scale: torchvision's reference recipes and its pretrained weights.
inline constexpr std::array<float, 3> kImageNetMean{0.485f, 0.456f, 0.406f};
inline constexpr std::array<float, 3> kImageNetStd{0.229f, 0.224f, 0.225f};

// The per-channel mean and std of torchvision's Normalize: a float layout delivers
// ((x / 255) - mean) / std, as ToTensor followed by Normalize.
struct Normalization {
  std::array<float, 3> mean = kImageNetMean;
  std::array<float, 3> std = kImageNetStd;
};

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
  bool normalize = false;              // the spec names Normalize, which needs a float layout
  // What float layouts are normalised with, whether the spec names Normalize or not (a float
  // layout is always normalised, as ToTensor + Normalize): the run's one mean and std.
  Normalization normalization;
  EraseSpec erase;
};

// One step of a detection transform (DetectionSpec), with torchvision.transforms.v2's
// parameters (Ultralytics' for the YOLO steps). Each geometric step moves the image's boxes
// (and masks) exactly as it moves its pixels (decode/detection_transform.h).
struct DetectionStep {
  enum class Kind {
    kPhotometricDistort,  // RandomPhotometricDistort(brightness, contrast, saturation, hue, p)
    kZoomOut,             // RandomZoomOut(fill, side_range, p)
    kIouCrop,             // RandomIoUCrop(min_scale, max_scale, min_aspect_ratio, max_aspect_ratio,
                          //               sampler_options, trials)
    kHorizontalFlip,      // RandomHorizontalFlip(p)
    kVerticalFlip,        // RandomVerticalFlip(p)
    kResize,              // Resize((height, width)) (stretching), or Resize(width, max_size)
                          // (shorter side)
    kShortestSize,        // RandomShortestSize(min_sizes, max_size)
    kRandomResizedCrop,   // RandomResizedCrop((height, width), scale, ratio)
    kCenterCrop,          // CenterCrop((height, width))
    kPad,                 // Pad([left, top, right, bottom], fill)
    kClamp,               // ClampBoundingBoxes()
    kSanitize,            // SanitizeBoundingBoxes(min_size, min_area)
    kLetterbox,    // Ultralytics LetterBox((height, width), auto=False, scaleup, center), fill 114
    kHsv,          // Ultralytics RandomHSV(hgain, sgain, vgain)
    kPerspective,  // Ultralytics RandomPerspective(degrees, translate, scale, shear, perspective)
    // Ultralytics Mosaic(imgsz=width, p=1, n=4): only as the first step, on four images
    // (DetectionTransformer::run_mosaic); it makes a 2*width square canvas, which the first
    // perspective after it warps back to width x width (Ultralytics' border -width/2).
    kMosaic,
  };
  Kind kind = Kind::kHorizontalFlip;
  double p = 0.5;  // flips, photometric distort, zoom out
  // RandomPhotometricDistort's ranges.
  std::array<double, 2> brightness{0.875, 1.125}, contrast{0.5, 1.5}, saturation{0.5, 1.5},
      hue{-0.05, 0.05};
  std::array<double, 2> side_range{1.0, 4.0};  // RandomZoomOut
  // RandomIoUCrop's.
  double min_scale = 0.3, max_scale = 1.0, min_aspect_ratio = 0.5, max_aspect_ratio = 2.0;
  std::vector<double> sampler_options{0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0};
  int trials = 40;
  // The size a step makes (Resize, RandomResizedCrop, CenterCrop, LetterBox; Mosaic's imgsz);
  // height 0 with kResize: the shorter side becomes `width`, as Resize(int).
  int width = 0, height = 0;
  // Resize(int)'s and RandomShortestSize's cap on the longer side (0: none), and the shorter
  // sides RandomShortestSize draws from.
  int max_size = 0;
  std::vector<int> min_sizes;
  std::array<double, 2> scale{0.08, 1.0}, ratio{3.0 / 4.0, 4.0 / 3.0};  // RandomResizedCrop
  int left = 0, top = 0, right = 0, bottom = 0;                         // Pad
  std::array<double, 3> fill{0, 0, 0};             // zoom out, pad, letterbox: outside the image
  double min_size = 1, min_area = 1;               // SanitizeBoundingBoxes
  double hgain = 0.015, sgain = 0.7, vgain = 0.4;  // RandomHSV
  // RandomPerspective's (Ultralytics' defaults).
  double degrees = 0, translate = 0.1, perspective_scale = 0.5, shear = 0, perspective = 0;
  bool scaleup = true, center = true;  // LetterBox
  // Resize and RandomResizedCrop's filter (antialiased); LetterBox is cv2's INTER_LINEAR.
  Interpolation interpolation = Interpolation::kBilinear;
};

// When a detection transform's sizes vary, a batch's images are padded to its largest, rounded
// up to a multiple of this (torchvision's GeneralizedRCNNTransform's size_divisible).
inline constexpr int kPadMultiple = 32;
// `size` rounded up to a multiple of kPadMultiple.
constexpr int padded_size(int size) {
  return (size + kPadMultiple - 1) / kPadMultiple * kPadMultiple;
}

// A detection transform: its steps in the Compose's order (the text form: "ssd", "yolo" or
// "photometric,zoom_out,iou_crop,hflip,resize(300,300),sanitize"), and the normalization of
// float layouts. The steps end at an image of size x size, or, with size 0, at one whose size
// varies within a bound (Faster R-CNN's and DETR's Resize(800, max_size=1333) or
// RandomShortestSize: decode/detection_transform.h's steps_size): the Loader then pads each
// batch to its largest image.
struct DetectionSpec {
  std::vector<DetectionStep> steps;
  int size = 0;
  bool normalize = false;
  Normalization normalization;

  // The first step is a mosaic: each sample takes three partners (run_mosaic).
  bool mosaic() const {
    return !steps.empty() && steps.front().kind == DetectionStep::Kind::kMosaic;
  }
  // The output's size varies (size 0): batches are padded to their largest image.
  bool varies() const { return !steps.empty() && size == 0; }
  // A batch decodes in two phases (a mosaic, or sizes that vary: the Loader's Slot::phase).
  bool two_phase() const { return mosaic() || varies(); }
};

// What to do with an image on which libjpeg emits a warning (corrupt but decodable data:
// a damaged entropy segment, extraneous bytes before a marker, a wrong restart marker). Only
// the data actually decoded is seen: a crop that stops above the last row never reads the
// entropy data below it, so a warning there goes unnoticed, as it costs nothing.
enum class WarningPolicy {
  kAccept,  // decode what libjpeg recovers (PIL and torchvision do the same)
  kReject,  // fail with decode's DecodeErrc::kWarning and libjpeg's first warning
};

}  // namespace feedrate
