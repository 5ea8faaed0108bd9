// validate(const DetectionSpec&) of decode/detection_transform.h: each step's parameters in
// torchvision's (or Ultralytics') ranges, and the sizes the steps make, followed statically.
#include <cmath>
#include <string>

#include "decode/detection_transform.h"

namespace feedrate::decode {

namespace {

using Kind = DetectionStep::Kind;

bool in_unit(double p) {
  return p >= 0 && p <= 1;
}

bool ordered(const std::array<double, 2>& range, double low) {
  return range[0] >= low && range[0] <= range[1];
}

bool fill_ok(const std::array<double, 3>& fill) {
  for (double f : fill) {
    if (!(f >= 0 && f <= 255)) return false;
  }
  return true;
}

}  // namespace

const char* detection_step_name(Kind kind) {
  switch (kind) {
    case Kind::kPhotometricDistort:
      return "photometric";
    case Kind::kZoomOut:
      return "zoom_out";
    case Kind::kIouCrop:
      return "iou_crop";
    case Kind::kHorizontalFlip:
      return "hflip";
    case Kind::kVerticalFlip:
      return "vflip";
    case Kind::kResize:
      return "resize";
    case Kind::kShortestSize:
      return "shortest";
    case Kind::kRandomResizedCrop:
      return "rrc";
    case Kind::kCenterCrop:
      return "center_crop";
    case Kind::kPad:
      return "pad";
    case Kind::kClamp:
      return "clamp";
    case Kind::kSanitize:
      return "sanitize";
    case Kind::kLetterbox:
      return "letterbox";
    case Kind::kHsv:
      return "hsv";
    case Kind::kPerspective:
      return "perspective";
    case Kind::kMosaic:
      return "mosaic";
  }
  return "?";
}

namespace {

// What is wrong with one step's parameters, or an empty string.
std::string check_step(const DetectionStep& s) {
  if (!in_unit(s.p)) return "p must be in [0, 1]";
  switch (s.kind) {
    case Kind::kPhotometricDistort:
      if (!ordered(s.brightness, 0) || !ordered(s.contrast, 0) || !ordered(s.saturation, 0)) {
        return "brightness, contrast and saturation need 0 <= low <= high";
      }
      if (!(ordered(s.hue, -0.5) && s.hue[1] <= 0.5)) {
        return "hue must satisfy -0.5 <= low <= high <= 0.5";
      }
      return {};
    case Kind::kZoomOut:
      if (!ordered(s.side_range, 1)) return "side_range must satisfy 1 <= low <= high";
      return fill_ok(s.fill) ? "" : "fill must be in [0, 255]";
    case Kind::kIouCrop:
      if (!(s.min_scale > 0 && s.min_scale <= s.max_scale && s.max_scale <= 1)) {
        return "scale must satisfy 0 < min_scale <= max_scale <= 1";
      }
      if (!(s.min_aspect_ratio > 0 && s.min_aspect_ratio <= s.max_aspect_ratio)) {
        return "aspect ratios must satisfy 0 < min <= max";
      }
      if (s.sampler_options.empty()) return "sampler_options must not be empty";
      return s.trials >= 1 ? "" : "trials must be at least 1";
    case Kind::kResize:
      if (s.width < 1 || s.height < 0) return "the size must be at least 1";
      if (s.max_size != 0 && s.height != 0) return "max_size goes with one size (the shorter side)";
      return s.max_size == 0 || s.max_size > s.width ? ""
                                                     : "max_size must be greater than the size";
    case Kind::kShortestSize:
      if (s.min_sizes.empty()) return "needs at least one size";
      for (int size : s.min_sizes) {
        if (size < 1) return "the sizes must be at least 1";
      }
      return s.max_size >= 0 ? "" : "max_size must not be negative";
    case Kind::kRandomResizedCrop:
      if (s.width < 1 || s.height < 1) return "the size must be at least 1";
      if (!(s.scale[0] > 0 && s.scale[0] <= s.scale[1])) return "scale needs 0 < low <= high";
      return s.ratio[0] > 0 && s.ratio[0] <= s.ratio[1] ? "" : "ratio needs 0 < low <= high";
    case Kind::kCenterCrop:
      return s.width >= 1 && s.height >= 1 ? "" : "the size must be at least 1";
    case Kind::kPad:
      if (s.left < 0 || s.top < 0 || s.right < 0 || s.bottom < 0) {
        return "padding must not be negative";
      }
      return fill_ok(s.fill) ? "" : "fill must be in [0, 255]";
    case Kind::kSanitize:
      return s.min_size >= 1 && s.min_area >= 1 ? "" : "min_size and min_area must be >= 1";
    case Kind::kLetterbox:
      if (s.width < 1 || s.height < 1) return "the size must be at least 1";
      return fill_ok(s.fill) ? "" : "fill must be in [0, 255]";
    case Kind::kHsv:
      return s.hgain >= 0 && s.sgain >= 0 && s.vgain >= 0 && s.hgain <= 1 && s.sgain <= 1 &&
                     s.vgain <= 1
                 ? ""
                 : "gains must be in [0, 1]";
    case Kind::kPerspective:
      if (!(s.degrees >= 0 && s.degrees <= 180 && s.shear >= 0 && s.shear < 90)) {
        return "degrees must be in [0, 180] and shear in [0, 90)";
      }
      if (!(s.translate >= 0 && s.translate <= 0.5)) return "translate must be in [0, 0.5]";
      if (!(s.perspective_scale >= 0 && s.perspective_scale < 1)) {
        return "scale must be in [0, 1)";
      }
      return s.perspective >= 0 && s.perspective <= 0.001 ? ""
                                                          : "perspective must be in [0, 0.001]";
    case Kind::kMosaic:
      return s.width >= 1 ? "" : "the size must be at least 1";
    case Kind::kHorizontalFlip:
    case Kind::kVerticalFlip:
    case Kind::kClamp:
      return {};
  }
  return {};
}

}  // namespace

StepsSize steps_size(const std::vector<DetectionStep>& steps, int max_width, int max_height) {
  StepsSize size;
  if (max_width > 0 && max_height > 0) {
    size.bounded = true;
    size.max_width = max_width;
    size.max_height = max_height;
  }
  int mosaic_size = 0;  // the size the first perspective after a mosaic warps to
  const auto fix = [&size](int width, int height) {
    size.known = size.bounded = true;
    size.width = size.max_width = width;
    size.height = size.max_height = height;
  };
  // The size is lost after `step`; still bounded by max_size x max_size when that is > 0.
  const auto lose = [&size](const char* after, int max_size, bool keeps_bound) {
    size.known = false;
    size.unknown_after = after;
    if (max_size > 0) {
      size.bounded = true;
      size.max_width = size.max_height = max_size;
    } else if (!keeps_bound) {
      size.bounded = false;
    }
  };
  for (const DetectionStep& step : steps) {
    switch (step.kind) {
      case Kind::kMosaic:
        fix(2 * step.width, 2 * step.width);
        mosaic_size = step.width;
        break;
      case Kind::kPerspective:
        if (mosaic_size > 0) fix(mosaic_size, mosaic_size);  // whatever came between
        mosaic_size = 0;
        break;
      case Kind::kResize:
        if (step.height == 0) {
          lose("resize(int), which keeps the aspect ratio", step.max_size, false);
          break;
        }
        fix(step.width, step.height);
        break;
      case Kind::kShortestSize:
        lose("shortest, which keeps the aspect ratio", step.max_size, false);
        break;
      case Kind::kRandomResizedCrop:
      case Kind::kCenterCrop:
      case Kind::kLetterbox:
        fix(step.width, step.height);
        break;
      case Kind::kPad:
        size.width += step.left + step.right;
        size.height += step.top + step.bottom;
        size.max_width += step.left + step.right;
        size.max_height += step.top + step.bottom;
        break;
      case Kind::kZoomOut:  // a canvas of int(side * r), r at most side_range's high
        size.max_width = static_cast<int>(std::ceil(size.max_width * step.side_range[1]));
        size.max_height = static_cast<int>(std::ceil(size.max_height * step.side_range[1]));
        lose(detection_step_name(step.kind), 0, true);
        break;
      case Kind::kIouCrop:  // a crop never enlarges
        lose(detection_step_name(step.kind), 0, true);
        break;
      default:
        break;
    }
  }
  return size;
}

std::string validate(const DetectionSpec& spec) {
  if (spec.steps.empty()) return "no steps: a detection transform needs at least its size";
  for (std::size_t i = 0; i < spec.steps.size(); ++i) {
    const DetectionStep& step = spec.steps[i];
    if (std::string problem = check_step(step); !problem.empty()) {
      return std::string(detection_step_name(step.kind)) + ": " + problem;
    }
    if (step.kind == Kind::kMosaic && i != 0) return "mosaic: only as the first step";
  }
  const StepsSize size = steps_size(spec.steps);
  if (!size.known) {
    if (spec.size != 0) {
      return "the size after " + std::string(size.unknown_after) +
             " varies: size must be 0 (batches padded to their largest image)";
    }
  } else if (spec.size < 1) {
    return "size must be at least 1";
  } else if (size.width != spec.size || size.height != spec.size) {
    return "the steps end at " + std::to_string(size.width) + "x" + std::to_string(size.height) +
           ", not size x size (" + std::to_string(spec.size) + ")";
  }
  for (float s : spec.normalization.std) {
    if (!(s > 0)) return "normalize: std must be > 0";
  }
  return {};
}

}  // namespace feedrate::decode
