// The text form of a detection transform (decode/detection_text.h): the recipes' steps, every
// step's arguments by position and keyword, the canonical text reading back as the same spec,
// errors that name the step, and the bound of steps whose sizes vary.
#include "decode/detection_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decode/detection_transform.h"

namespace feedrate::decode {
namespace {

using Kind = DetectionStep::Kind;

DetectionSpec parsed(const std::string& text) {
  DetectionSpec spec;
  const std::string error = parse_detection_transform(text, spec);
  EXPECT_EQ(error, "") << text;
  return spec;
}

std::string error_of(const std::string& text) {
  DetectionSpec spec;
  return parse_detection_transform(text, spec);
}

TEST(DetectionText, SsdIsTorchvisionsReferenceRecipe) {
  const DetectionSpec spec = parsed("ssd");
  ASSERT_EQ(spec.steps.size(), 6u);
  EXPECT_EQ(spec.size, 300);
  EXPECT_EQ(spec.steps[0].kind, Kind::kPhotometricDistort);
  EXPECT_EQ(spec.steps[1].kind, Kind::kZoomOut);
  EXPECT_EQ(spec.steps[1].fill, (std::array<double, 3>{123, 117, 104}));
  EXPECT_EQ(spec.steps[2].kind, Kind::kIouCrop);
  EXPECT_EQ(spec.steps[3].kind, Kind::kHorizontalFlip);
  EXPECT_EQ(spec.steps[4].kind, Kind::kResize);
  EXPECT_EQ(spec.steps[4].width, 300);
  EXPECT_EQ(spec.steps[4].height, 300);
  EXPECT_EQ(spec.steps[5].kind, Kind::kSanitize);
  EXPECT_EQ(parsed("ssd(512)").size, 512);
  EXPECT_EQ(format_detection_transform(parsed("ssd")),
            format_detection_transform(
                parsed("photometric,zoom_out(fill=123/117/104),iou_crop,hflip,resize(300,300),"
                       "sanitize")));
}

TEST(DetectionText, YoloIsUltralyticsTrainingRecipe) {
  // v8_transforms: Mosaic, RandomPerspective (border -SIZE/2), RandomHSV, RandomFlip.
  const DetectionSpec spec = parsed("yolo");
  ASSERT_EQ(spec.steps.size(), 4u);
  EXPECT_EQ(spec.size, 640);
  EXPECT_TRUE(spec.mosaic());
  EXPECT_EQ(spec.steps[0].kind, Kind::kMosaic);
  EXPECT_EQ(spec.steps[0].width, 640);
  EXPECT_EQ(spec.steps[1].kind, Kind::kPerspective);
  EXPECT_EQ(spec.steps[1].translate, 0.1);
  EXPECT_EQ(spec.steps[1].perspective_scale, 0.5);
  EXPECT_EQ(spec.steps[2].kind, Kind::kHsv);
  EXPECT_EQ(spec.steps[2].hgain, 0.015);
  EXPECT_EQ(spec.steps[2].sgain, 0.7);
  EXPECT_EQ(spec.steps[2].vgain, 0.4);
  EXPECT_EQ(spec.steps[3].kind, Kind::kHorizontalFlip);
  EXPECT_EQ(parsed("yolo(320)").size, 320);
  EXPECT_EQ(parsed("yolo(320)").steps[0].width, 320);
  EXPECT_EQ(format_detection_transform(spec),
            format_detection_transform(parsed("mosaic(640),perspective,hsv,hflip")));
  // Without the mosaic (Ultralytics' close_mosaic epochs): the letterbox pipeline.
  const DetectionSpec plain = parsed("yolo(320,mosaic=0)");
  EXPECT_FALSE(plain.mosaic());
  EXPECT_EQ(plain.size, 320);
  EXPECT_EQ(plain.steps[0].kind, Kind::kLetterbox);
  EXPECT_EQ(plain.steps[0].width, 320);
  EXPECT_EQ(plain.steps[0].fill, (std::array<double, 3>{114, 114, 114}));
  EXPECT_EQ(format_detection_transform(plain),
            format_detection_transform(parsed("letterbox(320),perspective,hsv,hflip")));
  // The mosaic's 2*SIZE canvas is the size until a perspective brings it back.
  EXPECT_EQ(parsed("mosaic(64)").size, 128);
  EXPECT_EQ(parsed("mosaic(64),hsv,perspective,hflip").size, 64);
  EXPECT_EQ(parsed("mosaic(64),perspective,perspective").size, 64);
  const DetectionSpec custom = parsed(
      "letterbox(256,scaleup=0,center=0,fill=0),perspective(degrees=10,shear=2),"
      "hsv(0.1,0.2,0.3)");
  EXPECT_FALSE(custom.steps[0].scaleup);
  EXPECT_FALSE(custom.steps[0].center);
  EXPECT_EQ(custom.steps[1].degrees, 10);
  EXPECT_EQ(custom.steps[1].shear, 2);
  EXPECT_EQ(custom.steps[2].vgain, 0.3);
}

TEST(DetectionText, StepsReadTheirArguments) {
  const DetectionSpec spec = parsed(
      "photometric(0.9/1.1,contrast=0.6/1.4,p=0.3),zoom_out(7,1/2.5,0.25),"
      "iou_crop(0.2,options=0/0.5/1,trials=10),vflip(0.1),resize(200),"
      "rrc(120,160,scale=0.5/1,interp=bicubic),center_crop(100),pad(2,3,2,1),clamp,"
      "sanitize(min_size=2),normalize(mean=0.5,std=0.25)");
  EXPECT_EQ(spec.size, 104);
  const auto& s = spec.steps;
  EXPECT_EQ(s[0].brightness, (std::array<double, 2>{0.9, 1.1}));
  EXPECT_EQ(s[0].contrast, (std::array<double, 2>{0.6, 1.4}));
  EXPECT_EQ(s[0].saturation, (std::array<double, 2>{0.5, 1.5}));
  EXPECT_EQ(s[0].p, 0.3);
  EXPECT_EQ(s[1].fill, (std::array<double, 3>{7, 7, 7}));
  EXPECT_EQ(s[1].side_range, (std::array<double, 2>{1, 2.5}));
  EXPECT_EQ(s[1].p, 0.25);
  EXPECT_EQ(s[2].min_scale, 0.2);
  EXPECT_EQ(s[2].sampler_options, (std::vector<double>{0, 0.5, 1}));
  EXPECT_EQ(s[2].trials, 10);
  EXPECT_EQ(s[3].kind, Kind::kVerticalFlip);
  EXPECT_EQ(s[4].width, 200);
  EXPECT_EQ(s[4].height, 0);  // the shorter side
  EXPECT_EQ(s[5].height, 120);
  EXPECT_EQ(s[5].width, 160);
  EXPECT_EQ(s[5].interpolation, Interpolation::kBicubic);
  EXPECT_EQ(s[6].width, 100);
  EXPECT_EQ(s[6].height, 100);
  EXPECT_EQ(s[7].left, 2);
  EXPECT_EQ(s[7].top, 3);
  EXPECT_EQ(s[7].right, 2);
  EXPECT_EQ(s[7].bottom, 1);
  EXPECT_EQ(s[9].min_size, 2);
  EXPECT_TRUE(spec.normalize);
  EXPECT_EQ(spec.normalization.std[2], 0.25f);
  // pad(N) pads every side, pad(LR, TB) as torchvision's two-value padding.
  const DetectionSpec pads = parsed("resize(8,8),pad(2,3),pad(1),center_crop(8)");
  EXPECT_EQ(pads.steps[1].right, 2);
  EXPECT_EQ(pads.steps[1].bottom, 3);
  EXPECT_EQ(pads.steps[2].top, 1);
  EXPECT_EQ(pads.steps[2].bottom, 1);
}

TEST(DetectionText, SizesThatVaryEndWithinABound) {
  const DetectionSpec frcnn = parsed("hflip,resize(800,max_size=1333),sanitize");
  EXPECT_EQ(frcnn.size, 0);
  EXPECT_TRUE(frcnn.varies());
  EXPECT_EQ(frcnn.steps[1].width, 800);
  EXPECT_EQ(frcnn.steps[1].height, 0);
  EXPECT_EQ(frcnn.steps[1].max_size, 1333);
  StepsSize size = steps_size(frcnn.steps);
  EXPECT_FALSE(size.known);
  EXPECT_TRUE(size.bounded);
  EXPECT_EQ(size.max_width, 1333);
  EXPECT_EQ(size.max_height, 1333);

  const DetectionSpec multiscale = parsed("shortest(480/512/800,max_size=1000),iou_crop,pad(2,3)");
  EXPECT_EQ(multiscale.steps[0].kind, Kind::kShortestSize);
  EXPECT_EQ(multiscale.steps[0].min_sizes, (std::vector<int>{480, 512, 800}));
  size = steps_size(multiscale.steps);
  EXPECT_TRUE(size.bounded);
  EXPECT_EQ(size.max_width, 1004);  // pad(2, 3): 2 left and right, 3 top and bottom
  EXPECT_EQ(size.max_height, 1006);

  // A zoom out grows a bound by its largest side ratio (4 by default).
  size = steps_size(parsed("resize(8,8),zoom_out").steps);
  EXPECT_TRUE(size.bounded && !size.known);
  EXPECT_EQ(size.max_width, 32);
  // Without a max_size the size varies without a bound, unless the images' largest size is
  // given (the Loader takes it from the annotations, or refuses the transform).
  for (const char* text : {"shortest(480/512),hflip", "hflip", "resize(100)"}) {
    EXPECT_TRUE(parsed(text).varies()) << text;
    EXPECT_FALSE(steps_size(parsed(text).steps).bounded) << text;
  }
  size = steps_size(parsed("hflip,zoom_out(side_range=1/2.5)").steps, 100, 80);
  EXPECT_TRUE(size.bounded);
  EXPECT_EQ(size.max_width, 250);
  EXPECT_EQ(size.max_height, 200);
  EXPECT_FALSE(steps_size(parsed("hflip,resize(100)").steps, 100, 80).bounded);
  EXPECT_FALSE(parsed("ssd").varies());
  EXPECT_FALSE(parsed("resize(800,max_size=1333),center_crop(640,640)").varies());
}

TEST(DetectionText, TheCanonicalTextReadsBackAsTheSameSpec) {
  for (const char* text :
       {"ssd", "ssd(512)", "yolo", "yolo(96,mosaic=0)", "mosaic(32),hsv,perspective(scale=0.2)",
        "letterbox(64,center=0),hsv(0.5),vflip",
        "photometric(0.9/1.1,p=0.3),zoom_out(fill=1/2/3,side_range=1/3),"
        "iou_crop(trials=7),hflip(0.25),rrc(64,64,ratio=0.5/2),clamp,"
        "sanitize,normalize",
        "resize(80),vflip,center_crop(64,64),pad(1,2,3,2,fill=9)",
        "hflip,resize(800,max_size=1333),sanitize",
        "shortest(480/512/544,max_size=1000,interp=bicubic),hflip,iou_crop,pad(2)"}) {
    const DetectionSpec spec = parsed(text);
    const std::string canonical = format_detection_transform(spec);
    const DetectionSpec again = parsed(canonical);
    EXPECT_EQ(format_detection_transform(again), canonical) << text;
    EXPECT_EQ(again.size, spec.size);
    EXPECT_EQ(again.steps.size(), spec.steps.size());
  }
}

TEST(DetectionText, ErrorsNameTheStep) {
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("ssd,blur").find("unknown step 'blur'"), std::string::npos);
  EXPECT_NE(error_of("hflip(2),resize(8,8)").find("hflip: p must be in [0, 1]"), std::string::npos);
  EXPECT_NE(error_of("resize(800,max_size=800)").find("max_size must be greater than the size"),
            std::string::npos);
  EXPECT_NE(error_of("resize(8,9,max_size=20)").find("max_size goes with one size"),
            std::string::npos);
  EXPECT_NE(error_of("shortest(480/512.5,max_size=900)").find("the sizes are integers"),
            std::string::npos);
  EXPECT_NE(error_of("shortest(max_size=900)").find("shortest: needs its sizes"),
            std::string::npos);

  EXPECT_NE(error_of("resize(8,9)").find("the steps end at 9x8, not size x size"),
            std::string::npos);
  EXPECT_NE(error_of("resize").find("resize: needs a size"), std::string::npos);
  EXPECT_NE(error_of("resize(8,8,foo=1)").find("resize: unknown argument 'foo'"),
            std::string::npos);
  EXPECT_NE(error_of("normalize,resize(8,8)").find("normalize comes last"), std::string::npos);
  EXPECT_NE(error_of("zoom_out(side_range=0.5/2),resize(8,8)").find("zoom_out: side_range"),
            std::string::npos);
  EXPECT_NE(error_of("hflip,mosaic(64),perspective").find("mosaic: only as the first step"),
            std::string::npos);
  EXPECT_NE(error_of("mosaic,perspective").find("mosaic: needs its size"), std::string::npos);
  EXPECT_NE(error_of("yolo(64,mosaic=2)").find("yolo: mosaic is 0 or 1"), std::string::npos);
}

}  // namespace
}  // namespace feedrate::decode
