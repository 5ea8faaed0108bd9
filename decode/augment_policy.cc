#include "decode/augment_policy.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <utility>

#include "decode/transform.h"

namespace feedrate::decode {
namespace {

using Kind = PixelStep::Kind;

// AutoAugment's ImageNet policy (torchvision.transforms.AutoAugment._get_policies): pairs of
// (op, probability, magnitude bin or -1 for none).
struct PolicyOp {
  AugmentOp op;
  double p;
  int bin;
};
constexpr std::pair<PolicyOp, PolicyOp> kImageNetPolicy[] = {
    {{AugmentOp::kPosterize, 0.4, 8}, {AugmentOp::kRotate, 0.6, 9}},
    {{AugmentOp::kSolarize, 0.6, 5}, {AugmentOp::kAutoContrast, 0.6, -1}},
    {{AugmentOp::kEqualize, 0.8, -1}, {AugmentOp::kEqualize, 0.6, -1}},
    {{AugmentOp::kPosterize, 0.6, 7}, {AugmentOp::kPosterize, 0.6, 6}},
    {{AugmentOp::kEqualize, 0.4, -1}, {AugmentOp::kSolarize, 0.2, 4}},
    {{AugmentOp::kEqualize, 0.4, -1}, {AugmentOp::kRotate, 0.8, 8}},
    {{AugmentOp::kSolarize, 0.6, 3}, {AugmentOp::kEqualize, 0.6, -1}},
    {{AugmentOp::kPosterize, 0.8, 5}, {AugmentOp::kEqualize, 1.0, -1}},
    {{AugmentOp::kRotate, 0.2, 3}, {AugmentOp::kSolarize, 0.6, 8}},
    {{AugmentOp::kEqualize, 0.6, -1}, {AugmentOp::kPosterize, 0.4, 6}},
    {{AugmentOp::kRotate, 0.8, 8}, {AugmentOp::kColor, 0.4, 0}},
    {{AugmentOp::kRotate, 0.4, 9}, {AugmentOp::kEqualize, 0.6, -1}},
    {{AugmentOp::kEqualize, 0.0, -1}, {AugmentOp::kEqualize, 0.8, -1}},
    {{AugmentOp::kInvert, 0.6, -1}, {AugmentOp::kEqualize, 1.0, -1}},
    {{AugmentOp::kColor, 0.6, 4}, {AugmentOp::kContrast, 1.0, 8}},
    {{AugmentOp::kRotate, 0.8, 8}, {AugmentOp::kColor, 1.0, 2}},
    {{AugmentOp::kColor, 0.8, 8}, {AugmentOp::kSolarize, 0.8, 7}},
    {{AugmentOp::kSharpness, 0.4, 7}, {AugmentOp::kInvert, 0.6, -1}},
    {{AugmentOp::kShearX, 0.6, 5}, {AugmentOp::kEqualize, 1.0, -1}},
    {{AugmentOp::kColor, 0.4, 0}, {AugmentOp::kEqualize, 0.6, -1}},
    {{AugmentOp::kEqualize, 0.4, -1}, {AugmentOp::kSolarize, 0.2, 4}},
    {{AugmentOp::kSolarize, 0.6, 5}, {AugmentOp::kAutoContrast, 0.6, -1}},
    {{AugmentOp::kInvert, 0.6, -1}, {AugmentOp::kEqualize, 1.0, -1}},
    {{AugmentOp::kColor, 0.6, 4}, {AugmentOp::kContrast, 1.0, 8}},
    {{AugmentOp::kEqualize, 0.8, -1}, {AugmentOp::kEqualize, 0.6, -1}},
};
constexpr int kAutoAugmentBins = 10;

SampledOp signed_op(AugmentOp op, OpMagnitude m, bool negate) {
  return {op, m.signed_op && negate ? -m.value : m.value};
}

// A standard normal value (Box-Muller; one of the pair).
float standard_normal(Rng& rng) {
  const double u1 = 1.0 - rng.uniform();  // (0, 1]
  const double u2 = rng.uniform();
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
}

}  // namespace

double torch_linspace(double start, double end, int steps, int index) {
  if (steps == 1) return static_cast<float>(start);
  const auto s = static_cast<float>(start), e = static_cast<float>(end);
  const float step = (e - s) / static_cast<float>(steps - 1);
  const int halfway = steps / 2;
  return index < halfway ? s + step * static_cast<float>(index)
                         : e - step * static_cast<float>(steps - index - 1);
}

OpMagnitude op_magnitude(PixelStep::Kind policy, AugmentOp op, int bin, int num_bins, int width,
                         int height) {
  const bool wide = policy == Kind::kTrivialAugmentWide;
  const auto line = [&](double end) { return torch_linspace(0.0, end, num_bins, bin); };
  switch (op) {
    case AugmentOp::kShearX:
    case AugmentOp::kShearY:
      return {line(wide ? 0.99 : 0.3), true};
    case AugmentOp::kTranslateX:
      return {line(wide ? 32.0 : 150.0 / 331.0 * width), true};
    case AugmentOp::kTranslateY:
      return {line(wide ? 32.0 : 150.0 / 331.0 * height), true};
    case AugmentOp::kRotate:
      return {line(wide ? 135.0 : 30.0), true};
    case AugmentOp::kBrightness:
    case AugmentOp::kColor:
    case AugmentOp::kContrast:
    case AugmentOp::kSharpness:
      return {line(wide ? 0.99 : 0.9), true};
    case AugmentOp::kPosterize: {
      // 8 - (arange(num_bins) / ((num_bins - 1) / D)).round().int(), D = 6 wide, else 4.
      const auto divisor = static_cast<float>((num_bins - 1) / (wide ? 6.0 : 4.0));
      return {static_cast<double>(8 - py_round(static_cast<float>(bin) / divisor)), false};
    }
    case AugmentOp::kSolarize:
      return {torch_linspace(255.0, 0.0, num_bins, bin), false};
    case AugmentOp::kIdentity:
    case AugmentOp::kAutoContrast:
    case AugmentOp::kEqualize:
    case AugmentOp::kInvert:
      return {0.0, false};
  }
  return {};
}

SampledOp sample_trivial_augment_wide(const PixelStep& step, int width, int height, Rng& rng) {
  const auto op = static_cast<AugmentOp>(rng.below(kPolicyOpCount));
  // A magnitude-less op (a 0-dimensional tensor in torchvision) draws no bin.
  const bool has_bins =
      op != AugmentOp::kIdentity && op != AugmentOp::kAutoContrast && op != AugmentOp::kEqualize;
  const int bin =
      has_bins ? static_cast<int>(rng.below(static_cast<std::uint64_t>(step.num_bins))) : 0;
  const OpMagnitude m =
      op_magnitude(Kind::kTrivialAugmentWide, op, bin, step.num_bins, width, height);
  const bool negate = m.signed_op && rng.below(2) == 1;
  return signed_op(op, m, negate);
}

std::vector<SampledOp> sample_rand_augment(const PixelStep& step, int width, int height, Rng& rng) {
  std::vector<SampledOp> ops;
  for (int i = 0; i < step.num_ops; ++i) {
    const auto op = static_cast<AugmentOp>(rng.below(kPolicyOpCount));
    const OpMagnitude m =
        op_magnitude(Kind::kRandAugment, op, step.magnitude, step.num_bins, width, height);
    const bool negate = m.signed_op && rng.below(2) == 1;
    ops.push_back(signed_op(op, m, negate));
  }
  return ops;
}

std::vector<SampledOp> sample_auto_augment(int width, int height, Rng& rng) {
  constexpr auto kPolicies = std::size(kImageNetPolicy);
  const auto& policy = kImageNetPolicy[rng.below(kPolicies)];
  // get_params draws the policy, then two probabilities, then two signs.
  const double probs[2] = {rng.uniform(), rng.uniform()};
  const bool signs_zero[2] = {rng.below(2) == 0, rng.below(2) == 0};
  std::vector<SampledOp> ops;
  const PolicyOp parts[2] = {policy.first, policy.second};
  for (int i = 0; i < 2; ++i) {
    if (!(probs[i] <= parts[i].p)) continue;
    const OpMagnitude m = parts[i].bin < 0
                              ? OpMagnitude{}
                              : op_magnitude(Kind::kAutoAugment, parts[i].op, parts[i].bin,
                                             kAutoAugmentBins, width, height);
    ops.push_back(signed_op(parts[i].op, m, signs_zero[i]));
  }
  return ops;
}

ColorJitterParams sample_color_jitter(const PixelStep& step, Rng& rng) {
  ColorJitterParams params;
  for (int i = 3; i > 0; --i) {  // torch.randperm(4)
    std::swap(params.order[i], params.order[rng.below(static_cast<std::uint64_t>(i) + 1)]);
  }
  const std::array<double, 2>* ranges[4] = {&step.brightness, &step.contrast, &step.saturation,
                                            &step.hue};
  for (int k = 0; k < 4; ++k) {
    const auto& range = *ranges[k];
    const double identity = k == 3 ? 0.0 : 1.0;
    params.active[k] = !(range[0] == identity && range[1] == identity);
    if (params.active[k]) params.factor[k] = rng.uniform(range[0], range[1]);
  }
  return params;
}

void apply_color_jitter(ImageView image, const ColorJitterParams& params) {
  for (int k : params.order) {
    if (!params.active[k]) continue;
    const double f = params.factor[k];
    switch (k) {
      case 0:
        adjust_brightness(image, f);
        break;
      case 1:
        adjust_contrast(image, f);
        break;
      case 2:
        adjust_saturation(image, f);
        break;
      default:
        adjust_hue(image, f);
        break;
    }
  }
}

void apply_pixel_steps(const TransformSpec& spec, std::uint64_t sample_seed, ImageView image,
                       AugmentScratch& scratch) {
  if (spec.pixel_steps.empty()) return;
  Rng rng(pixel_stream_seed(sample_seed));
  const auto apply = [&](const SampledOp& s, const PixelStep& step) {
    apply_augment_op(image, s.op, s.magnitude, step.fill, scratch);
  };
  for (const PixelStep& step : spec.pixel_steps) {
    switch (step.kind) {
      case Kind::kHorizontalFlip:
        if (rng.uniform() < step.p) flip_horizontal(image);
        break;
      case Kind::kVerticalFlip:
        if (rng.uniform() < step.p) flip_vertical(image);
        break;
      case Kind::kGrayscale:
        if (rng.uniform() < step.p) to_grayscale(image);
        break;
      case Kind::kColorJitter:
        apply_color_jitter(image, sample_color_jitter(step, rng));
        break;
      case Kind::kTrivialAugmentWide:
        apply(sample_trivial_augment_wide(step, image.width, image.height, rng), step);
        break;
      case Kind::kRandAugment:
        for (const SampledOp& s : sample_rand_augment(step, image.width, image.height, rng)) {
          apply(s, step);
        }
        break;
      case Kind::kAutoAugment:
        for (const SampledOp& s : sample_auto_augment(image.width, image.height, rng)) {
          apply(s, step);
        }
        break;
    }
  }
}

EraseBox sample_erase(const EraseSpec& erase, int width, int height, Rng& rng) {
  EraseBox box;
  if (!(rng.uniform() < erase.p)) return box;
  const double area = static_cast<double>(width) * height;
  const double log_lo = std::log(erase.ratio_min), log_hi = std::log(erase.ratio_max);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double erase_area = area * rng.uniform(erase.scale_min, erase.scale_max);
    const double aspect = std::exp(rng.uniform(log_lo, log_hi));
    const int h = py_round(std::sqrt(erase_area * aspect));
    const int w = py_round(std::sqrt(erase_area / aspect));
    if (!(h < height && w < width)) continue;
    box.applied = true;
    box.height = h;
    box.width = w;
    box.top = static_cast<int>(rng.below(static_cast<std::uint64_t>(height - h + 1)));
    box.left = static_cast<int>(rng.below(static_cast<std::uint64_t>(width - w + 1)));
    return box;
  }
  return box;
}

void erase_float_chw(const EraseSpec& erase, std::uint64_t sample_seed, int size, float* chw) {
  if (erase.p <= 0) return;
  Rng rng(output_stream_seed(sample_seed));
  const EraseBox box = sample_erase(erase, size, size, rng);
  if (!box.applied) return;
  const std::size_t plane = static_cast<std::size_t>(size) * size;
  for (int c = 0; c < 3; ++c) {
    for (int y = box.top; y < box.top + box.height; ++y) {
      float* row = chw + c * plane + static_cast<std::size_t>(y) * size + box.left;
      for (int x = 0; x < box.width; ++x) {
        row[x] = erase.random_value ? standard_normal(rng) : static_cast<float>(erase.value[c]);
      }
    }
  }
}

void erase_uint8_hwc(const EraseSpec& erase, std::uint64_t sample_seed, int size,
                     std::uint8_t* hwc) {
  if (erase.p <= 0) return;
  Rng rng(output_stream_seed(sample_seed));
  const EraseBox box = sample_erase(erase, size, size, rng);
  if (!box.applied) return;
  std::uint8_t value[3];
  for (int c = 0; c < 3; ++c) {
    value[c] = static_cast<std::uint8_t>(std::nearbyint(std::clamp(erase.value[c], 0.0, 255.0)));
  }
  for (int y = box.top; y < box.top + box.height; ++y) {
    std::uint8_t* p = hwc + (static_cast<std::size_t>(y) * size + box.left) * 3;
    for (int x = 0; x < box.width; ++x, p += 3) std::memcpy(p, value, 3);
  }
}

}  // namespace feedrate::decode
