#include "decode/detection_transform.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "decode/augment.h"
#include "decode/box_geometry.h"
#include "decode/detection_ultralytics.h"
#include "decode/hue.h"
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

// One run: the canvas, the boxes and the affine map of the output to the source.
struct DetectionTransformer::Run {
  DetectionTransformer& t;
  bool instance_masks;
  // Per axis, output = source * scale + offset through the steps (flips left out).
  double scale_x = 1, scale_y = 1, offset_x = 0, offset_y = 0;

  int width() const { return t.canvas_.width(); }
  int height() const { return t.canvas_.height(); }

  void move_boxes(const Geometry& g) { transform_boxes(g, t.boxes_); }

  void pad(int left, int top, int right, int bottom, const std::array<double, 3>& fill) {
    // F.pad's fill on a uint8 image: each value converted to uint8 (truncated).
    const ImageCanvas::Fill bytes{static_cast<std::uint8_t>(fill[0]),
                                  static_cast<std::uint8_t>(fill[1]),
                                  static_cast<std::uint8_t>(fill[2])};
    move_boxes(pad_geometry(width(), height(), left, top, right, bottom));
    t.canvas_.pad(left, top, right, bottom, bytes);
    if (t.masks_.planes() > 0) t.masks_.pad(left, top, right, bottom);
    offset_x += left;
    offset_y += top;
  }

  // F.crop of the image (its boxes moved by the caller).
  void crop(int left, int top, int crop_w, int crop_h) {
    t.canvas_.crop(left, top, crop_w, crop_h);
    if (t.masks_.planes() > 0) t.masks_.crop(left, top, crop_w, crop_h);
    offset_x -= left;
    offset_y -= top;
  }

  // F.resize of the image (its boxes moved by the caller).
  void resize(int out_w, int out_h, Interpolation interpolation) {
    const double sx = static_cast<double>(out_w) / width();
    const double sy = static_cast<double>(out_h) / height();
    t.canvas_.resize(out_w, out_h, interpolation, t.resampler_);
    if (t.masks_.planes() > 0) t.masks_.resize(out_w, out_h);
    scale_x *= sx;
    scale_y *= sy;
    offset_x *= sx;
    offset_y *= sy;
  }

  void flip(bool horizontal, bool vertical) {
    move_boxes(flipped(identity_geometry(width(), height()), horizontal, vertical));
    t.canvas_.flip(horizontal, vertical);
    if (t.masks_.planes() > 0) t.masks_.flip(horizontal, vertical);
  }

  void photometric(const StepDraws& d) {
    const bool permute = d.channels != std::array<int, 3>{0, 1, 2};
    if (!(d.do_brightness || d.do_contrast || d.do_saturation || d.do_hue || permute)) return;
    const ImageView image = t.canvas_.pixels();
    if (d.do_brightness) adjust_brightness(image, d.brightness);
    if (d.do_contrast && d.contrast_before) adjust_contrast(image, d.contrast);
    if (d.do_saturation) adjust_saturation(image, d.saturation);
    if (d.do_hue) shift_hue(image, d.hue, HueArithmetic::kV2);
    if (d.do_contrast && !d.contrast_before) adjust_contrast(image, d.contrast);
    if (permute) permute_channels(image, d.channels);
  }

  void iou_crop(const StepDraws& d) {
    if (!d.apply) return;
    const int left = static_cast<int>(d.left), top = static_cast<int>(d.top);
    const int w = static_cast<int>(d.width), h = static_cast<int>(d.height);
    const IouCropTest test = iou_crop_test(t.boxes_, left, top, left + w, top + h, 0.0);
    move_boxes(crop_geometry(left, top, w, h));
    zero_boxes_outside(t.boxes_, test.center_inside);
    crop(left, top, w, h);
  }

  // Keeps the boxes at `indices` (ascending), their input indices and instance masks.
  void keep(const std::vector<std::uint32_t>& indices) {
    for (std::size_t k = 0; k < indices.size(); ++k) {
      std::copy_n(&t.boxes_[4 * indices[k]], 4, &t.boxes_[4 * k]);
      t.kept_[k] = t.kept_[indices[k]];
    }
    t.boxes_.resize(4 * indices.size());
    t.kept_.resize(indices.size());
    if (instance_masks) t.masks_.keep(indices);
  }

  void apply(const DetectionStep& step, const StepDraws& d) {
    switch (step.kind) {
      case Kind::kPhotometricDistort:
        photometric(d);
        break;
      case Kind::kZoomOut:
        if (d.apply) {
          const Geometry g = zoom_out_geometry(width(), height(), static_cast<float>(d.ratio),
                                               static_cast<float>(d.u), static_cast<float>(d.v));
          pad(g.offset_x, g.offset_y, g.canvas_w - width() - g.offset_x,
              g.canvas_h - height() - g.offset_y, step.fill);
        }
        break;
      case Kind::kIouCrop:
        iou_crop(d);
        break;
      case Kind::kHorizontalFlip:
        if (d.apply) flip(true, false);
        break;
      case Kind::kVerticalFlip:
        if (d.apply) flip(false, true);
        break;
      case Kind::kResize: {
        const auto [w, h] = step.height == 0 ? shorter_side_size(width(), height(), step.width)
                                             : std::pair{step.width, step.height};
        move_boxes(resize_geometry(width(), height(), w, h));
        resize(w, h, step.interpolation);
        break;
      }
      case Kind::kRandomResizedCrop: {
        const int left = static_cast<int>(d.left), top = static_cast<int>(d.top);
        const int w = static_cast<int>(d.width), h = static_cast<int>(d.height);
        move_boxes(resized_crop_geometry(left, top, w, h, step.width, step.height));
        crop(left, top, w, h);
        resize(step.width, step.height, step.interpolation);
        break;
      }
      case Kind::kCenterCrop: {
        const Geometry g = center_crop_geometry(width(), height(), step.width, step.height);
        move_boxes(g);
        crop(static_cast<int>(g.crop_x), static_cast<int>(g.crop_y), step.width, step.height);
        break;
      }
      case Kind::kPad:
        pad(step.left, step.top, step.right, step.bottom, step.fill);
        break;
      case Kind::kClamp:
        clamp_boxes(t.boxes_, width(), height());
        break;
      case Kind::kSanitize:
        keep(sanitize_boxes(t.boxes_, width(), height(), static_cast<float>(step.min_size),
                            static_cast<float>(step.min_area)));
        break;
      case Kind::kLetterbox: {
        const Geometry g = letterbox_image(step, t.canvas_, t.masks_, t.work_);
        move_boxes(g);
        scale_x *= g.scale_x;
        scale_y *= g.scale_y;
        offset_x = offset_x * g.scale_x + g.offset_x;
        offset_y = offset_y * g.scale_y + g.offset_y;
        break;
      }
      case Kind::kHsv:
        hsv_image(d, t.canvas_);
        break;
      case Kind::kPerspective:
        keep(perspective_step(step, d, t.canvas_, t.masks_, t.boxes_, t.work_));
        break;
    }
  }
};

DetectionResult DetectionTransformer::run(const DetectionSpec& spec,
                                          std::vector<std::uint8_t>& image, int width, int height,
                                          DetectionTargets& targets, std::uint64_t sample_seed,
                                          std::span<std::uint8_t> out, const Draws& draws) {
  if (const std::string problem = validate(spec); !problem.empty()) {
    throw std::invalid_argument("detection transform: " + problem);
  }
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  if (width < 1 || height < 1 || image.size() < pixels * 3 || targets.boxes.size() % 4 != 0 ||
      targets.masks.size() != pixels * targets.planes ||
      (targets.planes > 0 && !targets.semantic &&
       static_cast<std::size_t>(targets.planes) != targets.boxes.size() / 4) ||
      (targets.semantic && targets.planes != 1)) {
    throw std::invalid_argument(
        "detection transform: the image, boxes and mask planes do not agree in size");
  }
  if (out.size() != static_cast<std::size_t>(spec.size) * spec.size * 3) {
    throw std::invalid_argument("detection transform: the output is not size x size RGB");
  }
  boxes_.swap(targets.boxes);
  kept_.resize(boxes_.size() / 4);
  std::iota(kept_.begin(), kept_.end(), 0u);
  canvas_.reset(image, width, height);
  masks_.reset(targets.masks, targets.planes, width, height, targets.semantic ? 255 : 0);
  Run run{*this, targets.planes > 0 && !targets.semantic};
  Rng rng(sample_seed);
  for (std::size_t i = 0; i < spec.steps.size(); ++i) {
    const DetectionStep& step = spec.steps[i];
    StepDraws d;
    switch (step.kind) {
      case Kind::kPhotometricDistort:
        draw_photometric(step, rng, d);
        break;
      case Kind::kZoomOut:
        draw_zoom_out(step, rng, d);
        break;
      case Kind::kIouCrop:
        draw_iou_crop(step, rng, boxes_, run.width(), run.height(), d);
        break;
      case Kind::kHorizontalFlip:
      case Kind::kVerticalFlip:
        d.apply = unit_float(rng) < step.p;
        break;
      case Kind::kHsv:
        draw_hsv(step, rng, d);
        break;
      case Kind::kPerspective:
        draw_perspective(step, rng, run.width(), run.height(), d);
        break;
      case Kind::kRandomResizedCrop: {
        const CropBox c = random_resized_crop(step.scale[0], step.scale[1], step.ratio[0],
                                              step.ratio[1], run.width(), run.height(), rng);
        d.left = c.x;
        d.top = c.y;
        d.width = c.w;
        d.height = c.h;
        break;
      }
      default:
        break;
    }
    if (draws) draws(i, d);
    run.apply(step, d);
  }
  if (run.width() != spec.size || run.height() != spec.size) {
    throw std::logic_error("detection transform: the steps made " + std::to_string(run.width()) +
                           "x" + std::to_string(run.height()) + ", not the spec's size");
  }
  canvas_.write(out.data());
  targets.boxes.swap(boxes_);
  targets.kept.assign(kept_.begin(), kept_.end());
  if (targets.planes > 0) {
    targets.planes = targets.semantic ? 1 : static_cast<int>(kept_.size());
    masks_.take(targets.masks);
  }
  DetectionResult result;
  result.width = result.height = spec.size;
  result.scale_x = static_cast<float>(run.scale_x);
  result.scale_y = static_cast<float>(run.scale_y);
  result.pad_x = static_cast<float>(run.offset_x);
  result.pad_y = static_cast<float>(run.offset_y);
  return result;
}

}  // namespace feedrate::decode
