// Tests for decode/augment_policy: the drawn parameters follow torchvision's distributions
// (which op, which magnitude bin, the sign, the probabilities, ColorJitter's order, erasing's
// box), the magnitude tables match torch.linspace in float32, and the draws are a function of
// the seed only. The statistical checks run at fixed seeds, so they are deterministic; their
// tolerances are 6 standard deviations of the count, far outside what a correct sampler gives.
#include "decode/augment_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

namespace feedrate::decode {
namespace {

constexpr int kDraws = 140'000;

// |count - n p| within 6 standard deviations of a binomial count.
void expect_frequency(int count, int n, double p, const char* what) {
  const double sd = std::sqrt(n * p * (1 - p));
  EXPECT_LE(std::abs(count - n * p), 6 * sd + 1) << what << ": " << count << " of " << n;
}

PixelStep policy(PixelStep::Kind kind) {
  PixelStep step;
  step.kind = kind;
  step.num_bins = kind == PixelStep::Kind::kAutoAugment ? 10 : 31;
  return step;
}

TEST(AugmentPolicy, LinspaceIsTorchsFloat32) {
  // Values printed by torch 1.13: torch.linspace(0, 32, 31)[14, 15, 16],
  // torch.linspace(0, 0.99, 31)[30], torch.linspace(0, 150 / 331 * 224, 31)[9].
  EXPECT_EQ(torch_linspace(0.0, 32.0, 31, 14), 14.933334350585938);
  EXPECT_EQ(torch_linspace(0.0, 32.0, 31, 15), 16.0);
  EXPECT_EQ(torch_linspace(0.0, 32.0, 31, 16), 17.066665649414062);
  EXPECT_EQ(torch_linspace(0.0, 0.99, 31, 30), 0.9900000095367432);
  EXPECT_EQ(torch_linspace(0.0, 150.0 / 331.0 * 224, 31, 9), 30.45317268371582);
  EXPECT_EQ(torch_linspace(255.0, 0.0, 31, 1), 246.5);
}

TEST(AugmentPolicy, MagnitudeTables) {
  using Kind = PixelStep::Kind;
  // Posterize: 8 - round(bin / ((bins - 1) / 6)) for TrivialAugmentWide, / 4 otherwise.
  EXPECT_EQ(op_magnitude(Kind::kTrivialAugmentWide, AugmentOp::kPosterize, 30, 31, 176, 176).value,
            2);
  EXPECT_EQ(op_magnitude(Kind::kTrivialAugmentWide, AugmentOp::kPosterize, 3, 31, 176, 176).value,
            7);
  EXPECT_EQ(op_magnitude(Kind::kRandAugment, AugmentOp::kPosterize, 9, 31, 176, 176).value, 7);
  EXPECT_EQ(op_magnitude(Kind::kAutoAugment, AugmentOp::kPosterize, 8, 10, 176, 176).value, 4);
  // RandAugment's translation scales with the image: 150 / 331 of its width at the last bin.
  EXPECT_NEAR(op_magnitude(Kind::kRandAugment, AugmentOp::kTranslateX, 30, 31, 331, 100).value,
              150.0, 1e-4);
  EXPECT_NEAR(op_magnitude(Kind::kRandAugment, AugmentOp::kTranslateY, 30, 31, 331, 100).value,
              150.0 / 331.0 * 100, 1e-4);
  EXPECT_NEAR(op_magnitude(Kind::kTrivialAugmentWide, AugmentOp::kRotate, 30, 31, 9, 9).value,
              135.0, 1e-4);
  EXPECT_TRUE(op_magnitude(Kind::kRandAugment, AugmentOp::kShearX, 9, 31, 9, 9).signed_op);
  EXPECT_FALSE(op_magnitude(Kind::kRandAugment, AugmentOp::kSolarize, 9, 31, 9, 9).signed_op);
}

TEST(AugmentPolicy, TrivialAugmentWideIsUniformOverOpsBinsAndSigns) {
  const PixelStep step = policy(PixelStep::Kind::kTrivialAugmentWide);
  Rng rng(1234);
  std::map<AugmentOp, int> ops;
  std::map<double, int> rotate_magnitudes;
  int rotations = 0, negative_rotations = 0;
  for (int i = 0; i < kDraws; ++i) {
    const SampledOp s = sample_trivial_augment_wide(step, 176, 176, rng);
    ++ops[s.op];
    if (s.op == AugmentOp::kRotate) {
      ++rotations;
      negative_rotations += s.magnitude < 0;
      ++rotate_magnitudes[std::abs(s.magnitude)];
    }
    if (s.op == AugmentOp::kIdentity || s.op == AugmentOp::kEqualize) {
      EXPECT_EQ(s.magnitude, 0);
    }
    if (s.op == AugmentOp::kSolarize || s.op == AugmentOp::kPosterize) {
      EXPECT_GE(s.magnitude, 0);  // unsigned ops
    }
  }
  ASSERT_EQ(ops.size(), static_cast<std::size_t>(kPolicyOpCount));
  for (const auto& [op, count] : ops)
    expect_frequency(count, kDraws, 1.0 / 14, augment_op_name(op));
  // Bin 0 of a signed op has magnitude 0 either way; the other 30 bins each 1/31.
  ASSERT_EQ(rotate_magnitudes.size(), 31u);
  for (const auto& [magnitude, count] : rotate_magnitudes) {
    expect_frequency(count, rotations, 1.0 / 31, "rotate bin");
  }
  expect_frequency(negative_rotations, rotations - rotate_magnitudes[0.0], 0.5, "negative sign");
}

TEST(AugmentPolicy, RandAugmentDrawsNumOpsAtTheGivenMagnitude) {
  PixelStep step = policy(PixelStep::Kind::kRandAugment);
  step.num_ops = 3;
  step.magnitude = 9;
  Rng rng(99);
  std::map<AugmentOp, int> ops;
  int signed_count = 0, negative = 0;
  for (int i = 0; i < kDraws / 3; ++i) {
    const std::vector<SampledOp> drawn = sample_rand_augment(step, 224, 224, rng);
    ASSERT_EQ(drawn.size(), 3u);
    for (const SampledOp& s : drawn) {
      ++ops[s.op];
      const OpMagnitude m = op_magnitude(PixelStep::Kind::kRandAugment, s.op, 9, 31, 224, 224);
      EXPECT_EQ(std::abs(s.magnitude), m.value);
      if (m.signed_op) {
        ++signed_count;
        negative += s.magnitude < 0;
      }
    }
  }
  for (const auto& [op, count] : ops) {
    expect_frequency(count, (kDraws / 3) * 3, 1.0 / 14, augment_op_name(op));
  }
  expect_frequency(negative, signed_count, 0.5, "negative sign");
}

TEST(AugmentPolicy, AutoAugmentAppliesEachSubPolicyOpWithItsProbability) {
  Rng rng(7);
  // Sub-policy 12 is (Equalize 0.0, Equalize 0.8) and never applies its first op, so count
  // how many ops apply overall: the mean of the 50 probabilities of the ImageNet policy.
  const double probabilities[] = {0.4, 0.6, 0.6, 0.6, 0.8, 0.6, 0.6, 0.6, 0.4, 0.2, 0.4, 0.8, 0.6,
                                  0.6, 0.8, 1.0, 0.2, 0.6, 0.6, 0.4, 0.8, 0.4, 0.4, 0.6, 0.0, 0.8,
                                  0.6, 1.0, 0.6, 1.0, 0.8, 1.0, 0.8, 0.8, 0.4, 0.6, 0.6, 1.0, 0.4,
                                  0.6, 0.4, 0.2, 0.6, 0.6, 0.6, 1.0, 0.6, 1.0, 0.8, 0.6};
  double expected = 0;
  for (double p : probabilities) expected += p;
  expected /= 25;  // ops per draw
  long applied = 0;
  int inverts = 0, colors_zero = 0;
  for (int i = 0; i < kDraws; ++i) {
    for (const SampledOp& s : sample_auto_augment(224, 224, rng)) {
      ++applied;
      inverts += s.op == AugmentOp::kInvert;
      colors_zero += s.op == AugmentOp::kColor && s.magnitude == 0;
    }
  }
  const double per_draw = static_cast<double>(applied) / kDraws;
  EXPECT_NEAR(per_draw, expected, 0.01);
  // Invert: 3 sub-policies at 0.6 of 25.
  expect_frequency(inverts, kDraws, 3 * 0.6 / 25, "Invert");
  // Color at bin 0 (magnitude 0): sub-policies 11 (0.4) and 20 (0.4).
  expect_frequency(colors_zero, kDraws, 2 * 0.4 / 25, "Color bin 0");
}

TEST(AugmentPolicy, ColorJitterOrderIsAUniformPermutation) {
  PixelStep step;
  step.kind = PixelStep::Kind::kColorJitter;
  step.brightness = {0.6, 1.4};
  step.hue = {-0.1, 0.1};
  Rng rng(5);
  std::map<std::array<int, 4>, int> orders;
  double brightness_sum = 0;
  for (int i = 0; i < kDraws; ++i) {
    const ColorJitterParams params = sample_color_jitter(step, rng);
    ++orders[params.order];
    EXPECT_TRUE(params.active[0]);
    EXPECT_FALSE(params.active[1]);  // contrast {1, 1}: skipped
    EXPECT_FALSE(params.active[2]);
    EXPECT_TRUE(params.active[3]);
    EXPECT_GE(params.factor[0], 0.6);
    EXPECT_LT(params.factor[0], 1.4);
    EXPECT_LE(std::abs(params.factor[3]), 0.1);
    brightness_sum += params.factor[0];
  }
  ASSERT_EQ(orders.size(), 24u);
  for (const auto& [order, count] : orders) expect_frequency(count, kDraws, 1.0 / 24, "order");
  EXPECT_NEAR(brightness_sum / kDraws, 1.0, 0.01);  // 6 sd of the mean of U(0.6, 1.4) is 0.0036
}

TEST(AugmentPolicy, EraseAppliesWithItsProbabilityInsideTheImage) {
  EraseSpec erase;
  erase.p = 0.25;
  Rng rng(11);
  int applied = 0;
  double area = 0;
  for (int i = 0; i < kDraws; ++i) {
    const EraseBox box = sample_erase(erase, 176, 176, rng);
    if (!box.applied) continue;
    ++applied;
    EXPECT_GE(box.top, 0);
    EXPECT_GE(box.left, 0);
    EXPECT_LT(box.height, 176);
    EXPECT_LT(box.width, 176);
    EXPECT_LE(box.top + box.height, 176);
    EXPECT_LE(box.left + box.width, 176);
    area += static_cast<double>(box.height) * box.width / (176.0 * 176.0);
  }
  // A box almost always fits at these scales, so it applies with probability p.
  expect_frequency(applied, kDraws, 0.25, "erase applied");
  EXPECT_NEAR(area / applied, (0.02 + 0.33) / 2, 0.01);  // uniform scale, rounding aside
}

TEST(AugmentPolicy, PixelStepsAreAFunctionOfTheSeed) {
  TransformSpec spec;
  spec.size = 32;
  spec.pixel_steps = {policy(PixelStep::Kind::kTrivialAugmentWide),
                      policy(PixelStep::Kind::kRandAugment)};
  std::vector<std::uint8_t> base(32 * 32 * 3);
  for (std::size_t i = 0; i < base.size(); ++i) base[i] = static_cast<std::uint8_t>(i * 7 + i / 96);
  AugmentScratch scratch;
  const auto run = [&](std::uint64_t seed) {
    std::vector<std::uint8_t> image = base;
    apply_pixel_steps(spec, seed, {image.data(), 32, 32}, scratch);
    return image;
  };
  EXPECT_EQ(run(42), run(42));
  int differing = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) differing += run(seed) != run(seed + 100);
  EXPECT_GT(differing, 10);
}

}  // namespace
}  // namespace feedrate::decode
