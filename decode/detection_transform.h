// A detection transform (feedrate::DetectionSpec) run on one decoded image and its targets: the
// boxes, and optionally mask planes, move with the pixels through decode/box_geometry.h's
// Geometry, so they cannot drift. Pixels as torchvision.transforms.v2 computes them on a uint8
// tensor, in the Compose's order (Ultralytics' arithmetic for its steps); boxes with v2's
// float32 kernels; masks with nearest sampling (fill 0 for instance masks, 255, the usual
// "ignore", for a semantic label map).
//
// The random draws come from Rng(sample_seed) in step order, so the result is a pure function of
// the seed, the image and its boxes. A test fixes a step's draws through
// DetectionTransformer::Draws instead of the Rng. RandomIoUCrop draws options until one is
// accepted, as torchvision's make_params, but at most 1000 of them (torchvision loops without
// a bound); after them the image is left as is.
//
// The image lives on a virtual canvas (decode/detection_canvas.h): RandomZoomOut, Pad and the
// crops move a placement instead of pixels, flips are pending, a resize reads only the pixels
// its filter taps touch and a photometric step changes the image before the zoom out, as the
// SSD recipe orders them. Ultralytics' steps (decode/detection_ultralytics.h) materialize it.
//
// Ultralytics' Mosaic (a first step kMosaic) runs on four images through run_mosaic
// (decode/detection_mosaic.h loads them as Ultralytics' load_image does): the images placed
// around the drawn centre of a 2s x 2s canvas, their boxes shifted and clipped, then the other
// steps. When RandomPerspective follows, as in Ultralytics' recipe, its warp reads the four
// images directly, so the canvas is never written. Masks go onto a 2s x 2s canvas of planes
// (mosaic_masks) and move from there as the pixels do, by nearest sampling.
//
// Thread-safety: a DetectionTransformer holds scratch buffers; use one per thread.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "decode/detection_canvas.h"
#include "decode/detection_mosaic.h"
#include "decode/random.h"
#include "decode/resize.h"
#include "feedrate/decode_spec.h"

namespace feedrate::decode {

// One sample's targets, owned by the caller (capacity kept between calls).
struct DetectionTargets {
  // 4 floats a box, XYXY in pixels of the current image. On return: the kept boxes in the
  // output image.
  std::vector<float> boxes;
  // On return, for each kept box, its index in the boxes given (labels and flags follow it).
  std::vector<std::uint32_t> kept;
  // Mask planes at the image's size (planes x height x width bytes; instance masks, one plane
  // a box, in the boxes' order, or one semantic label map); empty: none. On return: the planes
  // of the kept boxes (all of them for a semantic map) at the output's size.
  std::vector<std::uint8_t> masks;
  int planes = 0;
  bool semantic = false;  // fill 255 instead of 0
};

// What maps a prediction on the output back to the source image, after a letterbox (scale and
// padding, Ultralytics' ratio_pad) or a plain resize (scale only): output = source * scale +
// pad per axis, composed through the resizes, crops, pads and letterboxes; flips and
// RandomPerspective's warp are not in it (an evaluation transform has neither).
struct DetectionResult {
  int width = 0, height = 0;  // of the output
  float scale_x = 1, scale_y = 1;
  float pad_x = 0, pad_y = 0;
};

class DetectionTransformer {
 public:
  // A test's fixed draws: called for step `index` before the step runs, with the values the
  // Rng drew (in torchvision's units: RandomIoUCrop's window, RandomZoomOut's ratio and corner,
  // a flip's yes/no, the photometric factors and channel order), which it may overwrite.
  struct StepDraws {
    bool apply = true;  // p draws; IoU crop: false leaves the image as is
    double left = 0, top = 0, width = 0, height = 0;  // crop windows (IoU crop, rrc), pixels
    double ratio = 1, u = 0, v = 0;                   // zoom out: side ratio, corner fractions
    double brightness = 1, contrast = 1, saturation = 1, hue = 0;
    bool do_brightness = false, do_contrast = false, do_saturation = false, do_hue = false;
    bool contrast_before = true;             // RandomPhotometricDistort's order
    std::array<int, 3> channels{0, 1, 2};    // its channel permutation (identity: none)
    double hgain = 0, sgain = 0, vgain = 0;  // HSV: its r = uniform(-1, 1) * gain
    std::array<double, 9> perspective{1, 0, 0, 0, 1, 0, 0, 0, 1};  // the 3x3 matrix M
    double perspective_scale = 1;    // its drawn scale s (box_candidates compares areas with it)
    int mosaic_x = 0, mosaic_y = 0;  // Mosaic's centre (xc, yc) on its 2s x 2s canvas
    int shortest = 0;                // RandomShortestSize's drawn shorter side
  };
  using Draws = std::function<void(std::size_t index, StepDraws& draws)>;

  // Runs `spec` on `image` (packed RGB, width x height; used as scratch: on return it holds one
  // of the transformer's buffers, content meaningless) and writes spec.size x spec.size packed
  // RGB uint8 to `out`. Draws come from Rng(sample_seed); `draws`, when set, may overwrite them
  // (tests). Throws std::invalid_argument for a spec validate() refuses or one with a mosaic
  // (run_mosaic runs those), or an image, boxes, masks or output whose sizes disagree.
  DetectionResult run(const DetectionSpec& spec, std::vector<std::uint8_t>& image, int width,
                      int height, DetectionTargets& targets, std::uint64_t sample_seed,
                      std::span<std::uint8_t> out, const Draws& draws = {});

  // Runs a spec whose output size varies (spec.size 0, within steps_size's bound) as run does,
  // resizing `out` to the output's result.width x result.height packed RGB.
  DetectionResult run_variable(const DetectionSpec& spec, std::vector<std::uint8_t>& image,
                               int width, int height, DetectionTargets& targets,
                               std::uint64_t sample_seed, std::vector<std::uint8_t>& out,
                               const Draws& draws = {});

  // Runs a spec whose first step is a mosaic (spec.mosaic()) on four loaded images: images[0]
  // is the sample's, images[1..3] its partners. Mosaic._mosaic4 with the centre drawn first
  // (yc, then xc, each int(uniform(s/2, 3s/2)) for imgsz s; StepDraws::mosaic_x/y at index 0),
  // then spec.steps[1..] (a perspective after the mosaic warps to s x s), writing
  // spec.size x spec.size packed RGB to `out`. targets' boxes and masks in are ignored; the
  // images' masks (MosaicImage::masks, all or none; targets.semantic says whether they are
  // semantic maps) move with the pixels (mosaic_masks, then nearest sampling). On return
  // targets.boxes holds the kept boxes, targets.kept, for each, its index in the concatenation
  // of images[0..3]'s boxes, and targets.masks their planes (or the one semantic map). The
  // result is scale 1, pad 0 (a mosaic has no single map back). Throws std::invalid_argument as
  // run does, for a spec without a mosaic, masks that disagree with their images, or a centre
  // outside [0, 2s].
  DetectionResult run_mosaic(const DetectionSpec& spec, std::span<const MosaicImage, 4> images,
                             DetectionTargets& targets, std::uint64_t sample_seed,
                             std::span<std::uint8_t> out, const Draws& draws = {});

 private:
  struct Run;  // one run's state (detection_transform.cc)

  // Draws and runs spec.steps[first..] on the canvas.
  void run_steps(const DetectionSpec& spec, std::size_t first, Rng& rng, const Draws& draws,
                 Run& run);
  // Where the output of width x height goes.
  using Output = std::function<std::span<std::uint8_t>(int width, int height)>;
  // run and run_variable: the steps on one image.
  DetectionResult run_image(const DetectionSpec& spec, std::vector<std::uint8_t>& image, int width,
                            int height, DetectionTargets& targets, std::uint64_t sample_seed,
                            const Output& out, const Draws& draws);
  // Checks the size the steps made and hands the output and the kept targets over.
  DetectionResult finish(const DetectionSpec& spec, const Run& run, DetectionTargets& targets,
                         const Output& out);

  ImageCanvas canvas_;
  MaskCanvas masks_;
  Resampler resampler_;
  std::vector<std::uint32_t> kept_;
  std::vector<float> boxes_;
  std::vector<std::uint8_t> work_;        // a step's output before the canvas takes it
  std::vector<std::uint8_t> work_masks_;  // a mosaic's mask planes before the canvas takes them
};

// The size the steps make, where the steps alone fix it: not `known` after a step whose output
// depends on the image's size (zoom_out, iou_crop, resize(int), shortest) until one fixes it
// again (resize(h,w), rrc, center_crop, letterbox; pad adds to a known size). A mosaic of
// imgsz s makes 2s x 2s, and the first perspective after it s x s. Where the size is not
// known it may still be `bounded`: at most max_width x max_height after resize(int) or
// shortest with a max_size M (M x M: either side may be the longer), kept by the steps that
// never enlarge (iou_crop, flips, photometric ones, sanitize) and grown by pad. Given the
// images' largest size (max_width and max_height > 0), the start is bounded by it, and a
// zoom_out grows a bound by its largest side ratio.
struct StepsSize {
  bool known = false;
  int width = 0, height = 0;
  bool bounded = false;  // known implies bounded, with the max the size
  int max_width = 0, max_height = 0;
  const char* unknown_after = "the start (the image's own size)";  // the step that lost it
};
StepsSize steps_size(const std::vector<DetectionStep>& steps, int max_width = 0,
                     int max_height = 0);

// The step's name in the text form (decode/detection_text.h): "photometric", "zoom_out", ...
const char* detection_step_name(DetectionStep::Kind kind);

// Returns an empty string when the spec is valid, else what is wrong (naming the step): a
// parameter out of its range, a mosaic that is not the first step, or steps that do not end at
// spec.size x spec.size (spec.size 0: at a size that varies, which the Loader also needs
// bounded).
std::string validate(const DetectionSpec& spec);

}  // namespace feedrate::decode
