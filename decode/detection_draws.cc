#include "decode/detection_draws.h"

#include <utility>

#include "decode/box_geometry.h"
#include "decode/detection_ultralytics.h"
#include "decode/transform.h"

namespace feedrate::decode {

namespace {

using Kind = DetectionStep::Kind;
using StepDraws = DetectionTransformer::StepDraws;

// RandomIoUCrop draws min_jaccard options until one is accepted or is the "leave as is" (>= 1);
// torchvision loops without a bound (forever when the options lack 1 and no crop can satisfy
// any, e.g. an image without boxes). After this many options the image is left as is: with
// the default options, reaching it has probability (6/7)^1000, below 1e-66.
constexpr int kIouCropRounds = 1000;

// torch.rand's float32: 24 random bits, in [0, 1).
float unit_float(Rng& rng) {
  return static_cast<float>(rng.next() >> 40) * 0x1.0p-24f;
}

void draw_photometric(const DetectionStep& step, Rng& rng, StepDraws& d) {
  // RandomPhotometricDistort.make_params: each factor drawn when rand < p, in this order.
  const auto factor = [&](const std::array<double, 2>& range, bool& apply, double& value) {
    apply = unit_float(rng) < step.p;
    if (apply) value = rng.uniform(range[0], range[1]);
  };
  factor(step.brightness, d.do_brightness, d.brightness);
  factor(step.contrast, d.do_contrast, d.contrast);
  factor(step.saturation, d.do_saturation, d.saturation);
  factor(step.hue, d.do_hue, d.hue);
  d.contrast_before = unit_float(rng) < 0.5f;
  d.channels = {0, 1, 2};
  if (unit_float(rng) < step.p) {
    for (int i = 2; i > 0; --i) {
      std::swap(d.channels[i], d.channels[rng.below(static_cast<std::uint64_t>(i) + 1)]);
    }
  }
}

void draw_zoom_out(const DetectionStep& step, Rng& rng, StepDraws& d) {
  d.apply = unit_float(rng) < step.p;
  if (!d.apply) return;
  // make_params, float32 as torch: r = side_range[0] + rand * (side_range[1] - side_range[0]).
  d.ratio = static_cast<float>(step.side_range[0]) +
            unit_float(rng) * static_cast<float>(step.side_range[1] - step.side_range[0]);
  d.u = unit_float(rng);
  d.v = unit_float(rng);
}

void draw_iou_crop(const DetectionStep& step, Rng& rng, const std::vector<float>& boxes, int width,
                   int height, StepDraws& d) {
  d.apply = false;
  const auto options = static_cast<std::uint64_t>(step.sampler_options.size());
  const auto min_scale = static_cast<float>(step.min_scale);
  const auto scale_span = static_cast<float>(step.max_scale - step.min_scale);
  for (int round = 0; round < kIouCropRounds; ++round) {
    const double min_overlap = step.sampler_options[rng.below(options)];
    if (min_overlap >= 1.0) return;
    for (int trial = 0; trial < step.trials; ++trial) {
      const float rw = min_scale + scale_span * unit_float(rng);
      const float rh = min_scale + scale_span * unit_float(rng);
      const int new_w = static_cast<int>(static_cast<float>(width) * rw);
      const int new_h = static_cast<int>(static_cast<float>(height) * rh);
      // new_h == 0 is Python's ZeroDivisionError in torchvision; a rejected trial here.
      if (new_h == 0) continue;
      const double aspect = static_cast<double>(new_w) / new_h;
      if (!(step.min_aspect_ratio <= aspect && aspect <= step.max_aspect_ratio)) continue;
      const int left = static_cast<int>(static_cast<float>(width - new_w) * unit_float(rng));
      const int top = static_cast<int>(static_cast<float>(height - new_h) * unit_float(rng));
      if (new_w == 0) continue;
      if (!iou_crop_test(boxes, left, top, left + new_w, top + new_h, min_overlap).accepted) {
        continue;
      }
      d.apply = true;
      d.left = left;
      d.top = top;
      d.width = new_w;
      d.height = new_h;
      return;
    }
  }
}

}  // namespace

void draw_step(const DetectionStep& step, Rng& rng, const std::vector<float>& boxes, int width,
               int height, int out_width, int out_height, StepDraws& d) {
  switch (step.kind) {
    case Kind::kPhotometricDistort:
      draw_photometric(step, rng, d);
      break;
    case Kind::kZoomOut:
      draw_zoom_out(step, rng, d);
      break;
    case Kind::kIouCrop:
      draw_iou_crop(step, rng, boxes, width, height, d);
      break;
    case Kind::kHorizontalFlip:
    case Kind::kVerticalFlip:
      d.apply = unit_float(rng) < step.p;
      break;
    case Kind::kHsv:
      draw_hsv(step, rng, d);
      break;
    case Kind::kPerspective:
      draw_perspective(step, rng, width, height, out_width, out_height, d);
      break;
    case Kind::kMosaic:
      draw_mosaic_centre(step.width, rng, d.mosaic_x, d.mosaic_y);
      break;
    case Kind::kShortestSize:
      d.shortest = step.min_sizes[rng.below(step.min_sizes.size())];
      break;
    case Kind::kRandomResizedCrop: {
      const CropBox c = random_resized_crop(step.scale[0], step.scale[1], step.ratio[0],
                                            step.ratio[1], width, height, rng);
      d.left = c.x;
      d.top = c.y;
      d.width = c.w;
      d.height = c.h;
      break;
    }
    default:
      break;
  }
}

}  // namespace feedrate::decode
