#include "decode/transform.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace feedrate::decode {

int py_round(double x) {
  return static_cast<int>(std::nearbyint(x));
}

namespace {

bool in_unit(double p) {
  return p >= 0 && p <= 1;
}

std::string validate_steps(const TransformSpec& spec) {
  using Kind = PixelStep::Kind;
  for (const PixelStep& step : spec.pixel_steps) {
    if (!in_unit(step.p)) return "a step's probability p must be in [0, 1]";
    if (step.kind == Kind::kColorJitter) {
      for (const auto& range : {step.brightness, step.contrast, step.saturation}) {
        if (!(range[0] >= 0 && range[0] <= range[1])) {
          return "jitter: brightness, contrast and saturation ranges need 0 <= low <= high";
        }
      }
      if (!(step.hue[0] >= -0.5 && step.hue[0] <= step.hue[1] && step.hue[1] <= 0.5)) {
        return "jitter: hue must satisfy -0.5 <= low <= high <= 0.5";
      }
    }
    if (step.kind == Kind::kTrivialAugmentWide || step.kind == Kind::kRandAugment) {
      if (step.num_bins < 2 || step.num_bins > 1000) return "bins must be in [2, 1000]";
    }
    if (step.kind == Kind::kRandAugment) {
      if (step.num_ops < 0 || step.num_ops > 100) return "ra: num_ops must be in [0, 100]";
      if (step.magnitude < 0 || step.magnitude >= step.num_bins) {
        return "ra: magnitude must be in [0, bins)";
      }
    }
    for (double f : step.fill) {
      if (!(f >= 0 && f <= 255)) return "fill must be in [0, 255]";
    }
  }
  const EraseSpec& e = spec.erase;
  if (!in_unit(e.p)) return "erase: p must be in [0, 1]";
  if (!(e.scale_min > 0 && e.scale_min <= e.scale_max && e.scale_max <= 1)) {
    return "erase: scale must satisfy 0 < low <= high <= 1";
  }
  if (!(e.ratio_min > 0 && e.ratio_min <= e.ratio_max)) {
    return "erase: ratio must satisfy 0 < low <= high";
  }
  for (float s : spec.normalization.std) {
    if (!(s > 0)) return "normalize: std must be > 0";
  }
  return {};
}

}  // namespace

std::string validate(const TransformSpec& spec) {
  // The fields' own ranges are the loader's option table's (loader/pipeline/option_bounds.h);
  // here what the decode needs whatever the caller: a positive size, and fields that relate.
  if (spec.size < 1) return "size must be at least 1";
  if (spec.kind == TransformKind::kEval && spec.resize < spec.size) {
    return "resize must be at least size";
  }
  if (!(spec.scale_min > 0 && spec.scale_min <= spec.scale_max)) {
    return "scale must satisfy 0 < scale_min <= scale_max";
  }
  if (!(spec.ratio_min > 0 && spec.ratio_min <= spec.ratio_max)) {
    return "ratio must satisfy 0 < ratio_min <= ratio_max";
  }
  // A probability, as every step's p (a spec's hflip right after its crop becomes this one).
  if (!in_unit(spec.flip_probability)) return "flip_probability must be in [0, 1]";
  return validate_steps(spec);
}

CropBox random_resized_crop(double scale_min, double scale_max, double ratio_min, double ratio_max,
                            int width, int height, Rng& rng) {
  const double area = static_cast<double>(width) * height;
  const double log_lo = std::log(ratio_min);
  const double log_hi = std::log(ratio_max);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * rng.uniform(scale_min, scale_max);
    const double aspect = std::exp(rng.uniform(log_lo, log_hi));
    const int w = py_round(std::sqrt(target_area * aspect));
    const int h = py_round(std::sqrt(target_area / aspect));
    if (0 < w && w <= width && 0 < h && h <= height) {
      const int y = static_cast<int>(rng.below(static_cast<std::uint64_t>(height - h + 1)));
      const int x = static_cast<int>(rng.below(static_cast<std::uint64_t>(width - w + 1)));
      return {x, y, w, h};
    }
  }
  // Fallback to a centre crop with the ratio clamped into range.
  const double in_ratio = static_cast<double>(width) / height;
  int w = width, h = height;
  if (in_ratio < ratio_min) {
    h = py_round(w / ratio_min);
  } else if (in_ratio > ratio_max) {
    w = py_round(h * ratio_max);
  }
  return {(width - w) / 2, (height - h) / 2, w, h};
}

std::pair<int, int> shorter_side_size(int width, int height, int size, int max_size) {
  const bool wide = width > height;
  const int short_side = wide ? height : width;
  const int long_side = wide ? width : height;
  int new_short = size;
  int new_long = static_cast<int>(static_cast<long long>(size) * long_side / short_side);
  if (max_size > 0 && new_long > max_size) {
    // int(max_size * new_short / new_long): Python's true division, then truncation.
    new_short = std::max(1, static_cast<int>(static_cast<double>(max_size) * new_short / new_long));
    new_long = max_size;
  }
  return wide ? std::pair{new_long, new_short} : std::pair{new_short, new_long};
}

int eval_resize_for(int size) {
  return std::max(size, size * 256 / 224);
}

ResizePlan plan_transform(const TransformSpec& spec, int width, int height, Rng& rng) {
  ResizePlan plan;
  plan.win_w = plan.win_h = spec.size;
  if (spec.kind == TransformKind::kTrain) {
    const CropBox crop = random_resized_crop(spec.scale_min, spec.scale_max, spec.ratio_min,
                                             spec.ratio_max, width, height, rng);
    plan.box_x = crop.x;
    plan.box_y = crop.y;
    plan.box_w = crop.w;
    plan.box_h = crop.h;
    plan.out_w = plan.out_h = spec.size;
    plan.clip_x0 = crop.x;
    plan.clip_y0 = crop.y;
    plan.clip_x1 = crop.x + crop.w;
    plan.clip_y1 = crop.y + crop.h;
    plan.flip = rng.uniform() < spec.flip_probability;
    plan.interpolation = spec.interpolation;
    return plan;
  }
  // torchvision Resize(int): the shorter side becomes `resize`, the longer one is truncated.
  std::tie(plan.out_w, plan.out_h) = shorter_side_size(width, height, spec.resize);
  plan.box_w = width;
  plan.box_h = height;
  plan.win_x = py_round((plan.out_w - spec.size) / 2.0);
  plan.win_y = py_round((plan.out_h - spec.size) / 2.0);
  plan.clip_x1 = width;
  plan.clip_y1 = height;
  plan.interpolation = spec.interpolation;
  return plan;
}

ResizePlan scale_plan(const ResizePlan& plan, double sx, double sy, int scaled_width,
                      int scaled_height) {
  ResizePlan scaled = plan;
  scaled.box_x = plan.box_x * sx;
  scaled.box_y = plan.box_y * sy;
  scaled.box_w = plan.box_w * sx;
  scaled.box_h = plan.box_h * sy;
  scaled.clip_x0 = std::clamp(static_cast<int>(std::floor(plan.clip_x0 * sx)), 0, scaled_width);
  scaled.clip_y0 = std::clamp(static_cast<int>(std::floor(plan.clip_y0 * sy)), 0, scaled_height);
  scaled.clip_x1 =
      std::clamp(static_cast<int>(std::ceil(plan.clip_x1 * sx)), scaled.clip_x0 + 1, scaled_width);
  scaled.clip_y1 =
      std::clamp(static_cast<int>(std::ceil(plan.clip_y1 * sy)), scaled.clip_y0 + 1, scaled_height);
  return scaled;
}

}  // namespace feedrate::decode
