#include "decode/detection_text.h"

#include <string>
#include <vector>

#include "decode/detection_transform.h"
#include "decode/step_text.h"

namespace feedrate::decode {
namespace {

using Kind = DetectionStep::Kind;
using namespace text;  // the shared tokenizer (decode/step_text.h)

// torchvision's SSD reference (references/detection/presets.py) zooms out onto the ImageNet
// mean, 255 * (0.485, 0.456, 0.406) truncated; Ultralytics letterboxes onto grey 114.
constexpr std::array<double, 3> kSsdFill{123, 117, 104};
constexpr std::array<double, 3> kYoloFill{114, 114, 114};

DetectionStep of_kind(Kind kind) {
  DetectionStep step;
  step.kind = kind;
  return step;
}

DetectionStep sized(Kind kind, int height, int width) {
  DetectionStep step = of_kind(kind);
  step.height = height;
  step.width = width;
  return step;
}

// "(H, W)" or "(S)" (S x S; for resize the shorter side, height 0) as the first arguments.
void read_size(Step& s, DetectionStep& step, bool shorter_side) {
  const int first = s.integer(0, "height", 0);
  const int second = s.integer(1, "width", 0);
  const int size = s.integer(99, "size", 0);
  if (first > 0 && second > 0) {
    step.height = first;
    step.width = second;
  } else if (first > 0 || size > 0) {
    step.width = first > 0 ? first : size;
    step.height = shorter_side ? 0 : step.width;
  } else {
    throw ParseError(s.name() + ": needs a size (H,W or S)");
  }
}

void add_recipe(Step& s, std::vector<DetectionStep>& steps) {
  if (s.name() == "ssd") {
    const int size = s.integer(0, "size", 300);
    DetectionStep zoom = of_kind(Kind::kZoomOut);
    zoom.fill = kSsdFill;
    steps.insert(steps.end(), {of_kind(Kind::kPhotometricDistort), zoom, of_kind(Kind::kIouCrop),
                               of_kind(Kind::kHorizontalFlip), sized(Kind::kResize, size, size),
                               of_kind(Kind::kSanitize)});
  } else {
    const int size = s.integer(0, "size", 640);
    const int mosaic = s.integer(1, "mosaic", 1);
    if (mosaic != 0 && mosaic != 1) throw ParseError("yolo: mosaic is 0 or 1");
    DetectionStep first = sized(mosaic != 0 ? Kind::kMosaic : Kind::kLetterbox, size, size);
    if (mosaic == 0) first.fill = kYoloFill;
    steps.insert(steps.end(), {first, of_kind(Kind::kPerspective), of_kind(Kind::kHsv),
                               of_kind(Kind::kHorizontalFlip)});
  }
}

DetectionStep parse_step(Step& s) {
  const std::string& name = s.name();
  DetectionStep step;
  if (name == "photometric") {
    step.kind = Kind::kPhotometricDistort;
    step.brightness = s.range(0, "brightness", step.brightness);
    step.contrast = s.range(1, "contrast", step.contrast);
    step.saturation = s.range(2, "saturation", step.saturation);
    step.hue = s.range(3, "hue", step.hue);
    step.p = s.number(4, "p", step.p);
  } else if (name == "zoom_out") {
    step.kind = Kind::kZoomOut;
    step.fill = s.triple(0, "fill", {0, 0, 0});
    step.side_range = s.range(1, "side_range", step.side_range);
    step.p = s.number(2, "p", step.p);
  } else if (name == "iou_crop") {
    step.kind = Kind::kIouCrop;
    step.min_scale = s.number(0, "min_scale", step.min_scale);
    step.max_scale = s.number(1, "max_scale", step.max_scale);
    step.min_aspect_ratio = s.number(2, "min_aspect_ratio", step.min_aspect_ratio);
    step.max_aspect_ratio = s.number(3, "max_aspect_ratio", step.max_aspect_ratio);
    step.sampler_options = s.numbers(4, "options", step.sampler_options);
    step.trials = s.integer(5, "trials", step.trials);
  } else if (name == "hflip" || name == "vflip") {
    step.kind = name == "hflip" ? Kind::kHorizontalFlip : Kind::kVerticalFlip;
    step.p = s.number(0, "p", step.p);
  } else if (name == "resize") {
    step.kind = Kind::kResize;
    read_size(s, step, true);
    step.max_size = s.integer(99, "max_size", 0);
    step.interpolation = s.interpolation();
  } else if (name == "shortest") {
    step.kind = Kind::kShortestSize;
    for (const double size : s.numbers(0, "sizes", {})) {
      if (size != static_cast<int>(size)) throw ParseError("shortest: the sizes are integers");
      step.min_sizes.push_back(static_cast<int>(size));
    }
    if (step.min_sizes.empty()) throw ParseError("shortest: needs its sizes (S1/S2/...)");
    step.max_size = s.integer(1, "max_size", 0);
    step.interpolation = s.interpolation();
  } else if (name == "rrc") {
    step.kind = Kind::kRandomResizedCrop;
    read_size(s, step, false);
    step.scale = s.range(2, "scale", step.scale);
    step.ratio = s.range(3, "ratio", step.ratio);
    step.interpolation = s.interpolation();
  } else if (name == "center_crop") {
    step.kind = Kind::kCenterCrop;
    read_size(s, step, false);
  } else if (name == "pad") {
    step.kind = Kind::kPad;
    step.left = s.integer(0, "left", 0);
    step.top = s.integer(1, "top", step.left);
    step.right = s.integer(2, "right", step.left);
    step.bottom = s.integer(3, "bottom", step.top);
    step.fill = s.triple(4, "fill", {0, 0, 0});
  } else if (name == "clamp") {
    step.kind = Kind::kClamp;
  } else if (name == "sanitize") {
    step.kind = Kind::kSanitize;
    step.min_size = s.number(0, "min_size", step.min_size);
    step.min_area = s.number(1, "min_area", step.min_area);
  } else if (name == "letterbox") {
    step.kind = Kind::kLetterbox;
    read_size(s, step, false);
    step.scaleup = s.integer(2, "scaleup", 1) != 0;
    step.center = s.integer(3, "center", 1) != 0;
    step.fill = s.triple(4, "fill", {114, 114, 114});
  } else if (name == "hsv") {
    step.kind = Kind::kHsv;
    step.hgain = s.number(0, "h", step.hgain);
    step.sgain = s.number(1, "s", step.sgain);
    step.vgain = s.number(2, "v", step.vgain);
  } else if (name == "mosaic") {
    step.kind = Kind::kMosaic;
    step.width = s.integer(0, "size", 0);
    if (step.width < 1) throw ParseError("mosaic: needs its size (imgsz)");
  } else if (name == "perspective") {
    step.kind = Kind::kPerspective;
    step.degrees = s.number(0, "degrees", step.degrees);
    step.translate = s.number(1, "translate", step.translate);
    step.perspective_scale = s.number(2, "scale", step.perspective_scale);
    step.shear = s.number(3, "shear", step.shear);
    step.perspective = s.number(4, "perspective", step.perspective);
  } else {
    throw ParseError("unknown step '" + name +
                     "'; steps: ssd, yolo, photometric, zoom_out, iou_crop, hflip, vflip, resize, "
                     "shortest, rrc, center_crop, pad, clamp, sanitize, letterbox, hsv, "
                     "perspective, mosaic, normalize");
  }
  return step;
}

void parse_items(std::string_view text, DetectionSpec& spec) {
  for (std::string_view part : split_top(text)) {
    Step s(part);
    if (spec.normalize) throw ParseError(s.name() + ": normalize comes last");
    if (s.name() == "ssd" || s.name() == "yolo") {
      add_recipe(s, spec.steps);
    } else if (s.name() == "normalize") {
      spec.normalize = true;
      spec.normalization = read_normalization(s);
    } else {
      spec.steps.push_back(parse_step(s));
    }
    s.finish();
  }
  const StepsSize size = steps_size(spec.steps);
  spec.size = size.known ? size.width : 0;
}

std::string size_text(const DetectionStep& step) {
  return std::to_string(step.height) + "," + std::to_string(step.width);
}

std::string format_step(const DetectionStep& s) {
  const std::string name = detection_step_name(s.kind);
  switch (s.kind) {
    case Kind::kPhotometricDistort:
      return name + "(brightness=" + pair(s.brightness) + ",contrast=" + pair(s.contrast) +
             ",saturation=" + pair(s.saturation) + ",hue=" + pair(s.hue) + ",p=" + num(s.p) + ")";
    case Kind::kZoomOut:
      return name + "(fill=" + rgb(s.fill) + ",side_range=" + pair(s.side_range) +
             ",p=" + num(s.p) + ")";
    case Kind::kIouCrop: {
      std::string options;
      for (double o : s.sampler_options) {
        if (!options.empty()) options += '/';
        options += num(o);
      }
      return name + "(min_scale=" + num(s.min_scale) + ",max_scale=" + num(s.max_scale) +
             ",min_aspect_ratio=" + num(s.min_aspect_ratio) +
             ",max_aspect_ratio=" + num(s.max_aspect_ratio) + ",options=" + options +
             ",trials=" + num(s.trials) + ")";
    }
    case Kind::kHorizontalFlip:
    case Kind::kVerticalFlip:
      return name + "(" + num(s.p) + ")";
    case Kind::kResize:
      return name + "(" + (s.height == 0 ? std::to_string(s.width) : size_text(s)) +
             (s.max_size > 0 ? ",max_size=" + num(s.max_size) : "") +
             ",interp=" + interp_name(s.interpolation) + ")";
    case Kind::kShortestSize: {
      std::string sizes;
      for (int size : s.min_sizes) {
        if (!sizes.empty()) sizes += '/';
        sizes += num(size);
      }
      return name + "(" + sizes + ",max_size=" + num(s.max_size) +
             ",interp=" + interp_name(s.interpolation) + ")";
    }
    case Kind::kRandomResizedCrop:
      return name + "(" + size_text(s) + ",scale=" + pair(s.scale) + ",ratio=" + pair(s.ratio) +
             ",interp=" + interp_name(s.interpolation) + ")";
    case Kind::kCenterCrop:
      return name + "(" + size_text(s) + ")";
    case Kind::kPad:
      return name + "(" + num(s.left) + "," + num(s.top) + "," + num(s.right) + "," +
             num(s.bottom) + ",fill=" + rgb(s.fill) + ")";
    case Kind::kClamp:
      return name;
    case Kind::kSanitize:
      return name + "(min_size=" + num(s.min_size) + ",min_area=" + num(s.min_area) + ")";
    case Kind::kLetterbox:
      return name + "(" + size_text(s) + ",scaleup=" + num(s.scaleup ? 1 : 0) +
             ",center=" + num(s.center ? 1 : 0) + ",fill=" + rgb(s.fill) + ")";
    case Kind::kHsv:
      return name + "(h=" + num(s.hgain) + ",s=" + num(s.sgain) + ",v=" + num(s.vgain) + ")";
    case Kind::kPerspective:
      return name + "(degrees=" + num(s.degrees) + ",translate=" + num(s.translate) +
             ",scale=" + num(s.perspective_scale) + ",shear=" + num(s.shear) +
             ",perspective=" + num(s.perspective) + ")";
    case Kind::kMosaic:
      return name + "(" + num(s.width) + ")";
  }
  return name;
}

}  // namespace

std::string parse_detection_transform(std::string_view text, DetectionSpec& out) {
  return text::parse_spec(text, out, [&](DetectionSpec& parsed) {
    parse_items(text, parsed);
    return validate(parsed);
  });
}

std::string format_detection_transform(const DetectionSpec& spec) {
  std::string text;
  for (const DetectionStep& step : spec.steps) {
    if (!text.empty()) text += ',';
    text += format_step(step);
  }
  if (spec.normalize) text.append(",").append(normalization_text(spec.normalization));
  return text;
}

}  // namespace feedrate::decode
