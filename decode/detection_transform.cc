#include "decode/detection_transform.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "decode/augment.h"
#include "decode/box_geometry.h"
#include "decode/detection_draws.h"
#include "decode/detection_ultralytics.h"
#include "decode/hue.h"

namespace feedrate::decode {

namespace {

using Kind = DetectionStep::Kind;
using StepDraws = DetectionTransformer::StepDraws;

void check_spec(const DetectionSpec& spec) {
  if (const std::string problem = validate(spec); !problem.empty()) {
    throw std::invalid_argument("detection transform: " + problem);
  }
}

void check_spec(const DetectionSpec& spec, std::span<std::uint8_t> out) {
  check_spec(spec);
  if (spec.size == 0) {
    throw std::invalid_argument(
        "detection transform: the steps end at sizes that vary: use run_variable");
  }
  if (out.size() != static_cast<std::size_t>(spec.size) * spec.size * 3) {
    throw std::invalid_argument("detection transform: the output is not size x size RGB");
  }
}

// RandomShortestSize's output size for a canvas of width x height, as its make_params: the
// ratio in Python floats, each side truncated (at least 1 here, where torchvision would fail).
std::pair<int, int> shortest_size(int width, int height, int shortest, int max_size) {
  double r = static_cast<double>(shortest) / std::min(width, height);
  if (max_size > 0) r = std::min(r, static_cast<double>(max_size) / std::max(width, height));
  return {std::max(1, static_cast<int>(width * r)), std::max(1, static_cast<int>(height * r))};
}

}  // namespace

// One run: the canvas, the boxes and the affine map of the output to the source.
struct DetectionTransformer::Run {
  DetectionTransformer& t;
  bool instance_masks;
  // After a mosaic of imgsz s: s, the size its first perspective warps to (Ultralytics' border
  // -s/2); else 0 (a perspective keeps the canvas' size).
  int mosaic_size = 0;
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
        const auto [w, h] = step.height == 0
                                ? shorter_side_size(width(), height(), step.width, step.max_size)
                                : std::pair{step.width, step.height};
        move_boxes(resize_geometry(width(), height(), w, h));
        resize(w, h, step.interpolation);
        break;
      }
      case Kind::kShortestSize: {
        const auto [w, h] = shortest_size(width(), height(), d.shortest, step.max_size);
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
      case Kind::kPerspective: {
        const int out = mosaic_size > 0 ? mosaic_size : width();
        const int out_h = mosaic_size > 0 ? mosaic_size : height();
        const cv2::WarpSource source = cv2::WarpSource::of(t.canvas_.flat());
        keep(perspective_step(step, d, source, out, out_h, t.canvas_, t.masks_, t.boxes_, t.work_));
        mosaic_size = 0;
        break;
      }
      case Kind::kMosaic:
        throw std::logic_error("detection transform: a mosaic runs first, in run_mosaic");
    }
  }
};

DetectionResult DetectionTransformer::run(const DetectionSpec& spec,
                                          std::vector<std::uint8_t>& image, int width, int height,
                                          DetectionTargets& targets, std::uint64_t sample_seed,
                                          std::span<std::uint8_t> out, const Draws& draws) {
  check_spec(spec, out);
  return run_image(
      spec, image, width, height, targets, sample_seed, [out](int, int) { return out; }, draws);
}

DetectionResult DetectionTransformer::run_variable(const DetectionSpec& spec,
                                                   std::vector<std::uint8_t>& image, int width,
                                                   int height, DetectionTargets& targets,
                                                   std::uint64_t sample_seed,
                                                   std::vector<std::uint8_t>& out,
                                                   const Draws& draws) {
  check_spec(spec);
  if (spec.size != 0) {
    throw std::invalid_argument("detection transform: the steps end at one size: use run");
  }
  return run_image(
      spec, image, width, height, targets, sample_seed,
      [&out](int w, int h) {
        out.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
        return std::span<std::uint8_t>(out);
      },
      draws);
}

DetectionResult DetectionTransformer::run_image(const DetectionSpec& spec,
                                                std::vector<std::uint8_t>& image, int width,
                                                int height, DetectionTargets& targets,
                                                std::uint64_t sample_seed, const Output& out,
                                                const Draws& draws) {
  if (spec.mosaic()) {
    throw std::invalid_argument("detection transform: a mosaic takes four images (run_mosaic)");
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
  boxes_.swap(targets.boxes);
  kept_.resize(boxes_.size() / 4);
  std::iota(kept_.begin(), kept_.end(), 0u);
  canvas_.reset(image, width, height);
  masks_.reset(targets.masks, targets.planes, width, height, targets.semantic ? 255 : 0);
  Run run{*this, targets.planes > 0 && !targets.semantic};
  Rng rng(sample_seed);
  run_steps(spec, 0, rng, draws, run);
  return finish(spec, run, targets, out);
}

DetectionResult DetectionTransformer::run_mosaic(const DetectionSpec& spec,
                                                 std::span<const MosaicImage, 4> images,
                                                 DetectionTargets& targets,
                                                 std::uint64_t sample_seed,
                                                 std::span<std::uint8_t> out, const Draws& draws) {
  check_spec(spec, out);
  if (!spec.mosaic()) {
    throw std::invalid_argument(
        "detection transform: run_mosaic needs a spec that starts with "
        "mosaic");
  }
  bool with_masks = false;
  for (const MosaicImage& image : images) {
    if (image.width < 1 || image.height < 1 ||
        image.pixels.size() < static_cast<std::size_t>(image.width) * image.height * 3 ||
        image.boxes.size() % 4 != 0) {
      throw std::invalid_argument(
          "detection transform: a mosaic image and its boxes do not agree in size");
    }
    with_masks = with_masks || !image.masks.empty();
  }
  const int size = spec.steps[0].width, canvas = 2 * size;
  Rng rng(sample_seed);
  StepDraws centre;
  draw_step(spec.steps[0], rng, boxes_, canvas, canvas, canvas, canvas, centre);
  if (draws) draws(0, centre);
  if (centre.mosaic_x < 0 || centre.mosaic_x > canvas || centre.mosaic_y < 0 ||
      centre.mosaic_y > canvas) {
    throw std::invalid_argument("detection transform: the mosaic's centre is outside its canvas");
  }
  const cv2::WarpSource source = mosaic_source(size, centre.mosaic_x, centre.mosaic_y, images);
  mosaic_boxes(source, images, boxes_, kept_);
  const bool semantic = with_masks && targets.semantic;
  const int planes = with_masks ? mosaic_masks(source, images, kept_, semantic, work_masks_) : 0;
  if (!with_masks) work_masks_.clear();
  masks_.reset(work_masks_, planes, canvas, canvas, semantic ? 255 : 0);
  targets.planes = planes;  // finish() takes the planes that are left
  targets.semantic = semantic;
  targets.masks.clear();
  Run run{*this, with_masks && !semantic};
  run.mosaic_size = size;
  std::size_t next = 1;
  if (spec.steps.size() > 1 && spec.steps[1].kind == Kind::kPerspective) {
    // Ultralytics' recipe: the warp reads the four images through the source.
    StepDraws d;
    draw_step(spec.steps[1], rng, boxes_, canvas, canvas, size, size, d);
    if (draws) draws(1, d);
    run.keep(
        perspective_step(spec.steps[1], d, source, size, size, canvas_, masks_, boxes_, work_));
    run.mosaic_size = 0;
    next = 2;
  } else {
    work_.resize(static_cast<std::size_t>(canvas) * canvas * 3);
    write_canvas(source, work_.data());
    canvas_.reset(work_, canvas, canvas);
  }
  run_steps(spec, next, rng, draws, run);
  DetectionResult result = finish(spec, run, targets, [out](int, int) { return out; });
  result.scale_x = result.scale_y = 1;
  result.pad_x = result.pad_y = 0;
  return result;
}

void DetectionTransformer::run_steps(const DetectionSpec& spec, std::size_t first, Rng& rng,
                                     const Draws& draws, Run& run) {
  for (std::size_t i = first; i < spec.steps.size(); ++i) {
    const DetectionStep& step = spec.steps[i];
    const bool to_mosaic_size = step.kind == Kind::kPerspective && run.mosaic_size > 0;
    StepDraws d;
    draw_step(step, rng, boxes_, run.width(), run.height(),
              to_mosaic_size ? run.mosaic_size : run.width(),
              to_mosaic_size ? run.mosaic_size : run.height(), d);
    if (draws) draws(i, d);
    run.apply(step, d);
  }
}

DetectionResult DetectionTransformer::finish(const DetectionSpec& spec, const Run& run,
                                             DetectionTargets& targets, const Output& out) {
  const StepsSize bound = spec.size > 0 ? StepsSize{} : steps_size(spec.steps);
  if (spec.size > 0
          ? run.width() != spec.size || run.height() != spec.size
          : bound.bounded && (run.width() > bound.max_width || run.height() > bound.max_height)) {
    throw std::logic_error("detection transform: the steps made " + std::to_string(run.width()) +
                           "x" + std::to_string(run.height()) + ", not the spec's size");
  }
  canvas_.write(out(run.width(), run.height()).data());
  targets.boxes.swap(boxes_);
  targets.kept.assign(kept_.begin(), kept_.end());
  if (targets.planes > 0) {
    targets.planes = targets.semantic ? 1 : static_cast<int>(kept_.size());
    masks_.take(targets.masks);
  }
  DetectionResult result;
  result.width = run.width();
  result.height = run.height();
  result.scale_x = static_cast<float>(run.scale_x);
  result.scale_y = static_cast<float>(run.scale_y);
  result.pad_x = static_cast<float>(run.offset_x);
  result.pad_y = static_cast<float>(run.offset_y);
  return result;
}

}  // namespace feedrate::decode
