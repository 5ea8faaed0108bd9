// Tests for decode/transform: the eval plan (torchvision Resize + CenterCrop, with Python's
// banker's rounding and int truncation), the train plan (RandomResizedCrop + RandomHorizontalFlip:
// crop bounds, scale and ratio ranges, flip rate, determinism, centre-crop fallback) and
// validate()'s messages.

#include "decode/transform.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "decode/random.h"

namespace feedrate::decode {
namespace {

TransformSpec eval_spec(int size = 224, int resize = 256) {
  TransformSpec spec;
  spec.kind = TransformKind::kEval;
  spec.size = size;
  spec.resize = resize;
  return spec;
}

ResizePlan plan_for(const TransformSpec& spec, int width, int height, std::uint64_t seed = 0) {
  Rng rng(seed);
  return plan_transform(spec, width, height, rng);
}

void expect_same_plan(const ResizePlan& a, const ResizePlan& b) {
  EXPECT_EQ(a.box_x, b.box_x);
  EXPECT_EQ(a.box_y, b.box_y);
  EXPECT_EQ(a.box_w, b.box_w);
  EXPECT_EQ(a.box_h, b.box_h);
  EXPECT_EQ(a.out_w, b.out_w);
  EXPECT_EQ(a.out_h, b.out_h);
  EXPECT_EQ(a.win_x, b.win_x);
  EXPECT_EQ(a.win_y, b.win_y);
  EXPECT_EQ(a.win_w, b.win_w);
  EXPECT_EQ(a.win_h, b.win_h);
  EXPECT_EQ(a.clip_x0, b.clip_x0);
  EXPECT_EQ(a.clip_y0, b.clip_y0);
  EXPECT_EQ(a.clip_x1, b.clip_x1);
  EXPECT_EQ(a.clip_y1, b.clip_y1);
  EXPECT_EQ(a.flip, b.flip);
}

// Checks the parts of an eval plan that do not depend on the output size.
void expect_eval_plan(const ResizePlan& plan, int width, int height, int out_w, int out_h,
                      int win_x, int win_y, int size) {
  EXPECT_EQ(plan.box_x, 0);
  EXPECT_EQ(plan.box_y, 0);
  EXPECT_EQ(plan.box_w, width);
  EXPECT_EQ(plan.box_h, height);
  EXPECT_EQ(plan.out_w, out_w);
  EXPECT_EQ(plan.out_h, out_h);
  EXPECT_EQ(plan.win_x, win_x);
  EXPECT_EQ(plan.win_y, win_y);
  EXPECT_EQ(plan.win_w, size);
  EXPECT_EQ(plan.win_h, size);
  EXPECT_EQ(plan.clip_x0, 0);
  EXPECT_EQ(plan.clip_y0, 0);
  EXPECT_EQ(plan.clip_x1, width);
  EXPECT_EQ(plan.clip_y1, height);
  EXPECT_FALSE(plan.flip);
}

TEST(EvalPlan, LandscapeUsesBankersRoundingForTheWindow) {
  // 256 * 500 / 375 = 341.33 -> 341; (341 - 224) / 2 = 58.5 rounds to the even 58.
  expect_eval_plan(plan_for(eval_spec(), 500, 375), 500, 375, 341, 256, 58, 16, 224);
}

TEST(EvalPlan, Portrait) {
  expect_eval_plan(plan_for(eval_spec(), 375, 500), 375, 500, 256, 341, 16, 58, 224);
}

TEST(EvalPlan, LongSideIsTruncatedNotRounded) {
  // 256 * 500 / 333 = 384.38 -> 384; 256 * 640 / 427 = 383.7 -> 383 (rounding would give 384).
  expect_eval_plan(plan_for(eval_spec(), 333, 500), 333, 500, 256, 384, 16, 80, 224);
  expect_eval_plan(plan_for(eval_spec(), 640, 427), 640, 427, 383, 256, 80, 16, 224);
}

TEST(EvalPlan, SquareAndHalfwayCases) {
  expect_eval_plan(plan_for(eval_spec(), 300, 300), 300, 300, 256, 256, 16, 16, 224);
  // (257 - 224) / 2 = 16.5 -> 16 (even); (259 - 224) / 2 = 17.5 -> 18 (even).
  expect_eval_plan(plan_for(eval_spec(224, 257), 400, 400), 400, 400, 257, 257, 16, 16, 224);
  expect_eval_plan(plan_for(eval_spec(224, 259), 400, 400), 400, 400, 259, 259, 18, 18, 224);
  // resize == size: the window is the whole short side.
  expect_eval_plan(plan_for(eval_spec(224, 224), 500, 375), 500, 375, 298, 224, 37, 0, 224);
}

TEST(EvalPlan, DoesNotConsumeTheRng) {
  Rng used(42), fresh(42);
  plan_transform(eval_spec(), 500, 375, used);
  EXPECT_EQ(used.next(), fresh.next());
}

TEST(TrainPlan, CropsAreInsideTheImageWithinScaleAndRatio) {
  constexpr int kWidth = 500, kHeight = 375, kSeeds = 10000;
  const TransformSpec spec;  // train, size 224, scale [0.08, 1], ratio [3/4, 4/3], p = 0.5
  const double area = static_cast<double>(kWidth) * kHeight;
  int flips = 0;
  double min_scale = 2, max_scale = 0, min_ratio = 10, max_ratio = 0;
  for (int seed = 0; seed < kSeeds; ++seed) {
    const ResizePlan plan = plan_for(spec, kWidth, kHeight, static_cast<std::uint64_t>(seed));
    SCOPED_TRACE("seed " + std::to_string(seed));
    // The box is an integer rectangle inside the image.
    ASSERT_EQ(plan.box_x, std::floor(plan.box_x));
    ASSERT_EQ(plan.box_y, std::floor(plan.box_y));
    ASSERT_EQ(plan.box_w, std::floor(plan.box_w));
    ASSERT_EQ(plan.box_h, std::floor(plan.box_h));
    ASSERT_GE(plan.box_x, 0);
    ASSERT_GE(plan.box_y, 0);
    ASSERT_GT(plan.box_w, 0);
    ASSERT_GT(plan.box_h, 0);
    ASSERT_LE(plan.box_x + plan.box_w, kWidth);
    ASSERT_LE(plan.box_y + plan.box_h, kHeight);
    // w and h are each rounded to the nearest integer, so allow half a pixel on each side.
    const double w = plan.box_w, h = plan.box_h;
    ASSERT_GE((w + 0.5) * (h + 0.5), 0.08 * area);
    ASSERT_LE(w * h, area);
    ASSERT_GE((w + 0.5) / (h - 0.5), 3.0 / 4.0);
    ASSERT_LE((w - 0.5) / (h + 0.5), 4.0 / 3.0);
    // The crop is resized to exactly the output; the filter reads only the crop.
    ASSERT_EQ(plan.out_w, 224);
    ASSERT_EQ(plan.out_h, 224);
    ASSERT_EQ(plan.win_x, 0);
    ASSERT_EQ(plan.win_y, 0);
    ASSERT_EQ(plan.win_w, 224);
    ASSERT_EQ(plan.win_h, 224);
    ASSERT_EQ(plan.clip_x0, plan.box_x);
    ASSERT_EQ(plan.clip_y0, plan.box_y);
    ASSERT_EQ(plan.clip_x1, plan.box_x + plan.box_w);
    ASSERT_EQ(plan.clip_y1, plan.box_y + plan.box_h);
    flips += plan.flip ? 1 : 0;
    min_scale = std::min(min_scale, w * h / area);
    max_scale = std::max(max_scale, w * h / area);
    min_ratio = std::min(min_ratio, w / h);
    max_ratio = std::max(max_ratio, w / h);
    // Same seed, same plan.
    expect_same_plan(plan, plan_for(spec, kWidth, kHeight, static_cast<std::uint64_t>(seed)));
  }
  // Binomial(10000, 0.5): sd 50, so 4700..5300 is a 6-sigma band.
  EXPECT_GE(flips, 4700);
  EXPECT_LE(flips, 5300);
  // The whole scale and ratio ranges are used, not just part of them.
  EXPECT_LT(min_scale, 0.09);
  EXPECT_GT(max_scale, 0.95);
  EXPECT_LT(min_ratio, 0.76);
  EXPECT_GT(max_ratio, 1.31);
}

TEST(TrainPlan, DifferentSeedsGiveDifferentCrops) {
  const TransformSpec spec;
  const ResizePlan first = plan_for(spec, 500, 375, 1);
  int different = 0;
  for (std::uint64_t seed = 2; seed < 102; ++seed) {
    const ResizePlan plan = plan_for(spec, 500, 375, seed);
    if (plan.box_x != first.box_x || plan.box_y != first.box_y || plan.box_w != first.box_w ||
        plan.box_h != first.box_h) {
      ++different;
    }
  }
  EXPECT_GE(different, 95);
}

TEST(TrainPlan, FlipProbabilityZeroAndOne) {
  TransformSpec spec;
  for (std::uint64_t seed = 0; seed < 500; ++seed) {
    spec.flip_probability = 0;
    EXPECT_FALSE(plan_for(spec, 500, 375, seed).flip);
    spec.flip_probability = 1;
    EXPECT_TRUE(plan_for(spec, 500, 375, seed).flip);
  }
}

TEST(TrainPlan, FallbackIsACentreCropWithTheRatioClamped) {
  TransformSpec spec;
  spec.scale_min = 0.99;
  spec.scale_max = 1.0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    // 2000x100: any crop of >= 99% of the area with ratio <= 4/3 is over 385 rows high, so all
    // ten attempts fail. Fallback: h = 100, w = round(100 * 4/3) = 133, centred.
    ResizePlan plan = plan_for(spec, 2000, 100, seed);
    EXPECT_EQ(plan.box_w, 133);
    EXPECT_EQ(plan.box_h, 100);
    EXPECT_EQ(plan.box_x, (2000 - 133) / 2);
    EXPECT_EQ(plan.box_y, 0);
    EXPECT_EQ(plan.clip_x0, 933);
    EXPECT_EQ(plan.clip_x1, 933 + 133);
    EXPECT_EQ(plan.clip_y0, 0);
    EXPECT_EQ(plan.clip_y1, 100);
    // 100x2000: w = 100, h = round(100 / (3/4)) = 133.
    plan = plan_for(spec, 100, 2000, seed);
    EXPECT_EQ(plan.box_w, 100);
    EXPECT_EQ(plan.box_h, 133);
    EXPECT_EQ(plan.box_x, 0);
    EXPECT_EQ(plan.box_y, (2000 - 133) / 2);
  }
}

TEST(TrainPlan, FallbackClampsOnlyWhenTheImageRatioIsOutOfRange) {
  // scale [1, 1] with ratio [2, 3] on a square image: every attempt is wider than the image.
  // in_ratio 1 < ratio_min, so w = width and h = round(w / 2), centred.
  TransformSpec spec;
  spec.scale_min = spec.scale_max = 1.0;
  spec.ratio_min = 2.0;
  spec.ratio_max = 3.0;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const ResizePlan plan = plan_for(spec, 300, 300, seed);
    EXPECT_EQ(plan.box_w, 300);
    EXPECT_EQ(plan.box_h, 150);
    EXPECT_EQ(plan.box_x, 0);
    EXPECT_EQ(plan.box_y, 75);
  }
  // 500x200 (ratio 2.5) with ratio [0.1, 10]: a full-area draw fits only for a ratio within
  // about 0.7% of 2.5, so nearly every seed falls back, and the in-range fallback keeps the whole
  // image; the rare fitting draw is the whole image up to a pixel of rounding.
  spec.ratio_min = 0.1;
  spec.ratio_max = 10.0;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const ResizePlan plan = plan_for(spec, 500, 200, seed);
    EXPECT_LE(plan.box_x, 1);
    EXPECT_LE(plan.box_y, 1);
    EXPECT_GE(plan.box_w, 499);
    EXPECT_GE(plan.box_h, 199);
  }
}

TEST(ScalePlan, ScalesTheBoxAndWidensTheClipToWholePixels) {
  ResizePlan plan;
  plan.box_x = 101;
  plan.box_y = 50;
  plan.box_w = 201;
  plan.box_h = 151;
  plan.out_w = plan.out_h = plan.win_w = plan.win_h = 64;
  plan.clip_x0 = 101;
  plan.clip_y0 = 50;
  plan.clip_x1 = 302;
  plan.clip_y1 = 201;
  plan.flip = true;
  const ResizePlan scaled = scale_plan(plan, 0.5, 0.25, 250, 94);
  EXPECT_DOUBLE_EQ(scaled.box_x, 50.5);
  EXPECT_DOUBLE_EQ(scaled.box_y, 12.5);
  EXPECT_DOUBLE_EQ(scaled.box_w, 100.5);
  EXPECT_DOUBLE_EQ(scaled.box_h, 37.75);
  EXPECT_EQ(scaled.clip_x0, 50);
  EXPECT_EQ(scaled.clip_y0, 12);
  EXPECT_EQ(scaled.clip_x1, 151);
  EXPECT_EQ(scaled.clip_y1, 51);
  EXPECT_EQ(scaled.out_w, 64);
  EXPECT_EQ(scaled.win_w, 64);
  EXPECT_TRUE(scaled.flip);
}

TEST(Validate, DefaultsAreValid) {
  EXPECT_EQ(validate(TransformSpec{}), "");
  EXPECT_EQ(validate(eval_spec()), "");
}

// Each invalid field gives a message that names that field.
TEST(Validate, NamesTheInvalidField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto expect_names = [](TransformSpec spec, const std::string& field) {
    const std::string message = validate(spec);
    EXPECT_NE(message.find(field), std::string::npos)
        << "message \"" << message << "\" does not name " << field;
  };
  for (const int size : {0, -1}) {
    TransformSpec spec;
    spec.size = size;
    const std::string message = validate(spec);
    EXPECT_EQ(message.rfind("size", 0), 0u) << message;  // "size ...", not "resize ..."
  }
  for (const int resize : {223, 1}) {
    TransformSpec spec = eval_spec();
    spec.resize = resize;
    expect_names(spec, "resize");
  }
  for (const double v : {0.0, -0.1, nan}) {
    TransformSpec spec;
    spec.scale_min = v;
    expect_names(spec, "scale_min");
  }
  for (const double v : {0.05, nan}) {  // below scale_min, NaN
    TransformSpec spec;
    spec.scale_max = v;
    expect_names(spec, "scale_max");
  }
  for (const double v : {0.0, -1.0, 1.5, nan}) {  // 1.5 > ratio_max
    TransformSpec spec;
    spec.ratio_min = v;
    expect_names(spec, "ratio_min");
  }
  for (const double v : {0.5, nan}) {  // below ratio_min
    TransformSpec spec;
    spec.ratio_max = v;
    expect_names(spec, "ratio_max");
  }
  for (const double v : {-0.01, 1.01, nan}) {
    TransformSpec spec;
    spec.flip_probability = v;
    expect_names(spec, "flip_probability");
  }
}

TEST(Validate, BoundaryValuesAreValid) {
  TransformSpec spec;
  spec.size = 1;
  spec.scale_min = spec.scale_max = 1;
  spec.ratio_min = spec.ratio_max = 1;
  spec.flip_probability = 1;
  EXPECT_EQ(validate(spec), "");
  spec.size = 8192;
  spec.flip_probability = 0;
  EXPECT_EQ(validate(spec), "");
  TransformSpec eval = eval_spec(224, 224);
  EXPECT_EQ(validate(eval), "");
  eval.resize = 16384;
  EXPECT_EQ(validate(eval), "");
}

}  // namespace
}  // namespace feedrate::decode
