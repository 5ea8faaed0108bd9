#include "decode/transform_text.h"

#include <algorithm>
#include <vector>

#include "decode/step_text.h"

namespace feedrate::decode {
namespace {

using Kind = PixelStep::Kind;
using namespace text;  // the shared tokenizer (decode/step_text.h)

// jitter(x): [max(0, 1 - x), 1 + x]; hue x: [-x, x].
std::array<double, 2> around_one(double x) {
  return {std::max(0.0, 1.0 - x), 1.0 + x};
}
std::array<double, 2> around_zero(double x) {
  return {-x, x};
}

PixelStep parse_pixel_step(Step& step) {
  PixelStep p;
  const std::string& name = step.name();
  if (name == "hflip" || name == "vflip" || name == "grayscale") {
    p.kind = name == "hflip"   ? Kind::kHorizontalFlip
             : name == "vflip" ? Kind::kVerticalFlip
                               : Kind::kGrayscale;
    p.p = step.number(0, "p", name == "grayscale" ? 0.1 : 0.5);
  } else if (name == "jitter") {
    p.kind = Kind::kColorJitter;
    p.brightness = step.range(0, "brightness", {1, 1}, around_one);
    p.contrast = step.range(1, "contrast", {1, 1}, around_one);
    p.saturation = step.range(2, "saturation", {1, 1}, around_one);
    p.hue = step.range(3, "hue", {0, 0}, around_zero);
  } else if (name == "ta_wide") {
    p.kind = Kind::kTrivialAugmentWide;
    p.num_bins = step.integer(0, "bins", 31);
    p.fill = step.triple(1, "fill", {0, 0, 0});
  } else if (name == "ra") {
    p.kind = Kind::kRandAugment;
    p.num_ops = step.integer(0, "num_ops", 2);
    p.magnitude = step.integer(1, "magnitude", 9);
    p.num_bins = step.integer(2, "bins", 31);
    p.fill = step.triple(3, "fill", {0, 0, 0});
  } else if (name == "aa" || name == "autoaugment") {
    p.kind = Kind::kAutoAugment;
    p.num_bins = 10;
    if (const auto policy = step.take(0, "policy"); policy && *policy != "imagenet") {
      throw ParseError(name + ": policy '" + *policy + "' is not supported (only imagenet)");
    }
    p.fill = step.triple(1, "fill", {0, 0, 0});
  } else {
    throw ParseError("unknown step '" + name + "'; steps: " + transform_step_names());
  }
  return p;
}

void parse_steps(std::string_view text, int size, TransformSpec& spec) {
  std::vector<std::string_view> parts = split_top(text);
  std::size_t i = 0;
  Step first(parts.at(0));
  const auto next_is = [&](const char* name) {
    return i < parts.size() && Step(parts[i]).name() == name;
  };
  ++i;
  if (first.name() == "train" || first.name() == "eval") {
    spec.kind = first.name() == "train" ? TransformKind::kTrain : TransformKind::kEval;
    spec.size = size;
    spec.resize = eval_resize_for(size);
    spec.flip_probability = spec.kind == TransformKind::kTrain ? 0.5 : 0.0;
  } else if (first.name() == "rrc") {
    spec.kind = TransformKind::kTrain;
    spec.size = first.integer(0, "size", size);
    const auto scale = first.range(1, "scale", {0.08, 1.0});
    const auto ratio = first.range(2, "ratio", {3.0 / 4.0, 4.0 / 3.0});
    spec.scale_min = scale[0];
    spec.scale_max = scale[1];
    spec.ratio_min = ratio[0];
    spec.ratio_max = ratio[1];
    spec.interpolation = first.interpolation();
    spec.flip_probability = 0;
    if (next_is("hflip")) {
      Step flip(parts[i++]);
      spec.flip_probability = flip.number(0, "p", 0.5);
      flip.finish();
    }
  } else if (first.name() == "resize") {
    spec.kind = TransformKind::kEval;
    spec.resize = first.integer(0, "size", eval_resize_for(size));
    spec.interpolation = first.interpolation();
    spec.flip_probability = 0;
    if (!next_is("center_crop")) {
      throw ParseError("resize must be followed by center_crop(size): the output is square");
    }
    Step crop(parts[i++]);
    spec.size = crop.integer(0, "size", size);
    crop.finish();
  } else {
    throw ParseError("the first step must be the geometry (train, eval, rrc or resize), not '" +
                     first.name() + "'");
  }
  first.finish();

  bool output_stage = false;
  for (; i < parts.size(); ++i) {
    Step step(parts[i]);
    if (step.name() == "normalize") {
      if (spec.normalize || spec.erase.p > 0)
        throw ParseError("normalize: given twice or after erase");
      spec.normalize = true;
      spec.normalization = read_normalization(step);
      output_stage = true;
    } else if (step.name() == "erase") {
      if (spec.erase.p > 0) throw ParseError("erase: given twice");
      EraseSpec& e = spec.erase;
      e.p = step.number(0, "p", 0.5);
      const auto scale = step.range(1, "scale", {0.02, 0.33});
      const auto ratio = step.range(2, "ratio", {0.3, 3.3});
      e.scale_min = scale[0];
      e.scale_max = scale[1];
      e.ratio_min = ratio[0];
      e.ratio_max = ratio[1];
      const auto value = step.take(3, "value");
      e.random_value = value && *value == "random";
      if (value && !e.random_value) {
        Step values("value(value=" + *value + ")");
        e.value = values.triple(0, "value", {0, 0, 0});
      }
      output_stage = true;
    } else if (step.name() == "rrc" || step.name() == "resize" || step.name() == "center_crop" ||
               step.name() == "train" || step.name() == "eval") {
      throw ParseError(step.name() + ": the geometry comes first, once");
    } else {
      if (output_stage) {
        throw ParseError(step.name() + ": pixel steps come before normalize and erase");
      }
      spec.pixel_steps.push_back(parse_pixel_step(step));
    }
    step.finish();
  }
}

}  // namespace

const char* transform_step_names() {
  return "train, eval, rrc, resize, center_crop, hflip, vflip, grayscale, jitter, ta_wide, ra, aa, "
         "normalize, erase";
}

std::string parse_transform(std::string_view text, int size, TransformSpec& spec) {
  return text::parse_spec(text, spec, [&](TransformSpec& parsed) {
    parse_steps(text, size, parsed);
    return validate(parsed);
  });
}

std::string format_transform(const TransformSpec& spec) {
  std::string text;
  if (spec.kind == TransformKind::kTrain) {
    text = "rrc(" + std::to_string(spec.size) + ",scale=" + pair({spec.scale_min, spec.scale_max}) +
           ",ratio=" + pair({spec.ratio_min, spec.ratio_max}) +
           ",interp=" + interp_name(spec.interpolation) + ")";
    if (spec.flip_probability > 0) text += ",hflip(" + num(spec.flip_probability) + ")";
  } else {
    text = "resize(" + std::to_string(spec.resize) + ",interp=" + interp_name(spec.interpolation) +
           "),center_crop(" + std::to_string(spec.size) + ")";
  }
  for (const PixelStep& p : spec.pixel_steps) {
    switch (p.kind) {
      case Kind::kHorizontalFlip:
        text += ",hflip(" + num(p.p) + ")";
        break;
      case Kind::kVerticalFlip:
        text += ",vflip(" + num(p.p) + ")";
        break;
      case Kind::kGrayscale:
        text += ",grayscale(" + num(p.p) + ")";
        break;
      case Kind::kColorJitter:
        text += ",jitter(brightness=" + pair(p.brightness) + ",contrast=" + pair(p.contrast) +
                ",saturation=" + pair(p.saturation) + ",hue=" + pair(p.hue) + ")";
        break;
      case Kind::kTrivialAugmentWide:
        text += ",ta_wide(bins=" + std::to_string(p.num_bins) + ",fill=" + rgb(p.fill) + ")";
        break;
      case Kind::kRandAugment:
        text += ",ra(num_ops=" + std::to_string(p.num_ops) +
                ",magnitude=" + std::to_string(p.magnitude) +
                ",bins=" + std::to_string(p.num_bins) + ",fill=" + rgb(p.fill) + ")";
        break;
      case Kind::kAutoAugment:
        text += ",aa(policy=imagenet,fill=" + rgb(p.fill) + ")";
        break;
    }
  }
  if (spec.normalize) text.append(",").append(normalization_text(spec.normalization));
  if (spec.erase.p > 0) {
    const EraseSpec& e = spec.erase;
    text += ",erase(" + num(e.p) + ",scale=" + pair({e.scale_min, e.scale_max}) +
            ",ratio=" + pair({e.ratio_min, e.ratio_max}) +
            ",value=" + (e.random_value ? std::string("random") : rgb(e.value)) + ")";
  }
  return text;
}

}  // namespace feedrate::decode
