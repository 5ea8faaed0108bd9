// Tests for decode/transform_text: the spec grammar (geometry first, pixel steps in order,
// normalize and erase last), train/eval as specs, defaults, round trips through
// format_transform, and messages that name the step and argument at fault.
#include "decode/transform_text.h"

#include <gtest/gtest.h>

#include <string>

namespace feedrate::decode {
namespace {

TransformSpec parse_ok(const std::string& text, int size = 224) {
  TransformSpec spec;
  const std::string problem = parse_transform(text, size, spec);
  EXPECT_EQ(problem, "") << text;
  return spec;
}

std::string parse_error(const std::string& text) {
  TransformSpec spec;
  return parse_transform(text, 224, spec);
}

TEST(TransformText, TrainAndEvalAreTheClassicSpecs) {
  const TransformSpec train = parse_ok("train", 176);
  EXPECT_EQ(train.kind, TransformKind::kTrain);
  EXPECT_EQ(train.size, 176);
  EXPECT_EQ(train.flip_probability, 0.5);
  EXPECT_TRUE(train.pixel_steps.empty());
  const TransformSpec eval = parse_ok("eval", 224);
  EXPECT_EQ(eval.kind, TransformKind::kEval);
  EXPECT_EQ(eval.resize, 256);
  EXPECT_EQ(eval.flip_probability, 0);
}

TEST(TransformText, ReferenceRecipe) {
  const TransformSpec spec =
      parse_ok("rrc(176,interp=bilinear),hflip,ta_wide,normalize,erase(0.1)");
  EXPECT_EQ(spec.size, 176);
  EXPECT_EQ(spec.interpolation, Interpolation::kBilinear);
  EXPECT_EQ(spec.flip_probability, 0.5);  // fused into the resize
  ASSERT_EQ(spec.pixel_steps.size(), 1u);
  EXPECT_EQ(spec.pixel_steps[0].kind, PixelStep::Kind::kTrivialAugmentWide);
  EXPECT_EQ(spec.pixel_steps[0].num_bins, 31);
  EXPECT_TRUE(spec.normalize);
  EXPECT_FLOAT_EQ(spec.normalization.std[2], 0.225f);
  EXPECT_EQ(spec.erase.p, 0.1);
  EXPECT_EQ(spec.erase.scale_min, 0.02);
  EXPECT_EQ(spec.erase.ratio_max, 3.3);
}

TEST(TransformText, ArgumentsByPositionAndKeyword) {
  const TransformSpec spec = parse_ok(
      "rrc(160,scale=0.35/1,ratio=0.5/2,interp=bicubic),vflip(0.25),grayscale,"
      "jitter(0.4,0.3,saturation=0.2/0.9,hue=0.1),ra(3,magnitude=7,bins=21,fill=128),"
      "aa(fill=1/2/3),hflip(p=0.7),normalize(mean=0.5,std=0.25/0.5/1),erase(0.3,value=random)");
  EXPECT_EQ(spec.scale_min, 0.35);
  EXPECT_EQ(spec.ratio_max, 2);
  EXPECT_EQ(spec.interpolation, Interpolation::kBicubic);
  EXPECT_EQ(spec.flip_probability, 0);  // no hflip right after the crop
  ASSERT_EQ(spec.pixel_steps.size(), 6u);
  EXPECT_EQ(spec.pixel_steps[0].p, 0.25);
  EXPECT_EQ(spec.pixel_steps[1].p, 0.1);  // RandomGrayscale's default
  const PixelStep& jitter = spec.pixel_steps[2];
  EXPECT_EQ(jitter.brightness[0], 0.6);
  EXPECT_EQ(jitter.brightness[1], 1.4);
  EXPECT_DOUBLE_EQ(jitter.contrast[0], 0.7);
  EXPECT_EQ(jitter.saturation[1], 0.9);
  EXPECT_EQ(jitter.hue[0], -0.1);
  const PixelStep& ra = spec.pixel_steps[3];
  EXPECT_EQ(ra.num_ops, 3);
  EXPECT_EQ(ra.magnitude, 7);
  EXPECT_EQ(ra.num_bins, 21);
  EXPECT_EQ(ra.fill[1], 128);
  EXPECT_EQ(spec.pixel_steps[4].fill[2], 3);
  EXPECT_EQ(spec.pixel_steps[5].kind, PixelStep::Kind::kHorizontalFlip);
  EXPECT_EQ(spec.pixel_steps[5].p, 0.7);
  EXPECT_FLOAT_EQ(spec.normalization.mean[1], 0.5f);
  EXPECT_TRUE(spec.erase.random_value);
}

TEST(TransformText, ResizeNeedsACenterCrop) {
  const TransformSpec spec = parse_ok("resize(232,interp=bicubic),center_crop(224)");
  EXPECT_EQ(spec.kind, TransformKind::kEval);
  EXPECT_EQ(spec.resize, 232);
  EXPECT_EQ(spec.size, 224);
  EXPECT_NE(parse_error("resize(232)").find("center_crop"), std::string::npos);
}

TEST(TransformText, FormatRoundTrips) {
  for (const char* text :
       {"train", "eval", "rrc(176),hflip,ta_wide,normalize,erase(0.1)",
        "rrc(96,interp=bicubic),jitter(0.4,0.4,0.4,0.1),ra,grayscale(0.2),vflip,aa",
        "resize(232),center_crop(224),hflip(0.3),erase(0.5,value=1/2/3)"}) {
    const TransformSpec spec = parse_ok(text);
    const std::string formatted = format_transform(spec);
    const TransformSpec again = parse_ok(formatted);
    EXPECT_EQ(format_transform(again), formatted) << text;
    EXPECT_EQ(again.pixel_steps.size(), spec.pixel_steps.size());
    EXPECT_EQ(again.flip_probability, spec.flip_probability);
    EXPECT_EQ(again.erase.p, spec.erase.p);
  }
}

TEST(TransformText, ErrorsNameTheStepAndArgument) {
  EXPECT_NE(parse_error("").find("empty"), std::string::npos);
  EXPECT_NE(parse_error("hflip,rrc(224)").find("first step"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),blur").find("unknown step 'blur'"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),blur").find("ta_wide"), std::string::npos);  // lists steps
  EXPECT_NE(parse_error("rrc(224,interp=lanczos)").find("lanczos"), std::string::npos);
  EXPECT_NE(parse_error("rrc(abc)").find("size='abc' is not a number"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),hflip(0.5,0.2)").find("unexpected argument"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),ta_wide(bin=3)").find("unknown argument 'bin'"),
            std::string::npos);
  EXPECT_NE(parse_error("rrc(224),normalize,ta_wide").find("before normalize"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),hflip(1.5)").find("[0, 1]"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),ra(magnitude=31)").find("magnitude"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),aa(policy=cifar10)").find("cifar10"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),jitter(hue=0.7)").find("hue"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),rrc(224)").find("geometry comes first"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224").find("unbalanced"), std::string::npos);
  EXPECT_NE(parse_error("rrc(224),ra(num_ops=1.5)").find("integer"), std::string::npos);
}

}  // namespace
}  // namespace feedrate::decode
