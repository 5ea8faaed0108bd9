// DetectionTransformer's properties on generated images: solid-coloured rectangles (one box
// each) on a grey background through the SSD recipe's geometry (zoom out, IoU crop, horizontal
// flip, resize, sanitize) with the Rng's draws, many seeds. The boxes must move as the pixels
// do: every delivered box encloses its object's pixels, and fits them (IoU >= 0.9) where the
// object is large enough for the resize's blurred edge not to matter; an object visible in the
// output without a box is one whose box sanitize dropped (zeroed by the IoU crop, or below
// min_size). The same for Ultralytics' letterbox, RandomPerspective (scale and translation)
// and flip, for the boxes its box_candidates keeps, and for its mosaic of four images (one
// object each) with RandomPerspective and flip. And a seed gives the same bytes every time,
// photometric distortion and the mosaic included.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "decode/detection_transform.h"

namespace feedrate::decode {
namespace {

using Bytes = std::vector<std::uint8_t>;
using Kind = DetectionStep::Kind;

constexpr int kWidth = 200, kHeight = 150, kSize = 300;
constexpr std::array<std::uint8_t, 3> kBackground{64, 64, 64};
// The objects' colours and rectangles (x1, y1, x2, y2), apart from each other.
constexpr std::array<std::array<std::uint8_t, 3>, 4> kColours{
    {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 0}}};
constexpr std::array<std::array<int, 4>, 4> kObjects{
    {{10, 10, 90, 70}, {110, 20, 190, 60}, {20, 90, 60, 140}, {100, 80, 180, 145}}};

void make_sample(Bytes& image, DetectionTargets& targets) {
  image.resize(static_cast<std::size_t>(kWidth) * kHeight * 3);
  for (std::size_t i = 0; i < image.size(); i += 3) std::copy_n(kBackground.data(), 3, &image[i]);
  targets = DetectionTargets{};
  for (std::size_t k = 0; k < kObjects.size(); ++k) {
    const auto& o = kObjects[k];
    for (int y = o[1]; y < o[3]; ++y) {
      for (int x = o[0]; x < o[2]; ++x) {
        std::copy_n(kColours[k].data(), 3, &image[(static_cast<std::size_t>(y) * kWidth + x) * 3]);
      }
    }
    for (int v : o) targets.boxes.push_back(static_cast<float>(v));
  }
}

DetectionSpec ssd_geometry(bool with_sanitize) {
  DetectionSpec spec;
  spec.size = kSize;
  DetectionStep zoom;
  zoom.kind = Kind::kZoomOut;
  zoom.fill = {123, 117, 104};
  DetectionStep crop;
  crop.kind = Kind::kIouCrop;
  DetectionStep flip;
  flip.kind = Kind::kHorizontalFlip;
  DetectionStep resize;
  resize.kind = Kind::kResize;
  resize.width = resize.height = kSize;
  spec.steps = {zoom, crop, flip, resize};
  if (with_sanitize) {
    DetectionStep sanitize;
    sanitize.kind = Kind::kSanitize;
    spec.steps.push_back(sanitize);
  }
  return spec;
}

// The pixels of object k in the output: each channel within 60 of its colour (the resize blends
// its edges with the background; a pixel mostly covered by the object counts).
bool is_object(const std::uint8_t* p, std::size_t k) {
  for (int c = 0; c < 3; ++c) {
    if (std::abs(static_cast<int>(p[c]) - static_cast<int>(kColours[k][c])) > 60) return false;
  }
  return true;
}

struct Extent {
  int x0 = kSize, y0 = kSize, x1 = 0, y1 = 0, pixels = 0;
};

Extent extent_of(const Bytes& out, std::size_t k) {
  Extent e;
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      if (!is_object(&out[(static_cast<std::size_t>(y) * kSize + x) * 3], k)) continue;
      e.x0 = std::min(e.x0, x);
      e.y0 = std::min(e.y0, y);
      e.x1 = std::max(e.x1, x + 1);
      e.y1 = std::max(e.y1, y + 1);
      ++e.pixels;
    }
  }
  return e;
}

float iou(const float* b, const Extent& e) {
  const float w =
      std::min(b[2], static_cast<float>(e.x1)) - std::max(b[0], static_cast<float>(e.x0));
  const float h =
      std::min(b[3], static_cast<float>(e.y1)) - std::max(b[1], static_cast<float>(e.y0));
  const float inter = std::max(w, 0.0f) * std::max(h, 0.0f);
  const float area =
      (b[2] - b[0]) * (b[3] - b[1]) + static_cast<float>((e.x1 - e.x0) * (e.y1 - e.y0)) - inter;
  return inter / area;
}

// Checks the kept boxes of one output against their objects' pixels: each encloses its
// object's pixels (give or take the blurred edge) and fits them (IoU >= 0.9) where it is at
// least 40 px a side. Marks the objects that have a box; returns how many were fitted.
int check_boxes(const DetectionTargets& targets, const Bytes& out, std::vector<bool>& has_box) {
  int fitted = 0;
  has_box.assign(kObjects.size(), false);
  for (std::size_t i = 0; i < targets.kept.size(); ++i) {
    const std::size_t k = targets.kept[i];
    has_box[k] = true;
    const float* b = &targets.boxes[4 * i];
    const Extent e = extent_of(out, k);
    EXPECT_GT(e.pixels, 0) << "a box without its object, label " << k;
    if (e.pixels == 0) continue;
    EXPECT_GE(e.x0, b[0] - 1.0f);
    EXPECT_GE(e.y0, b[1] - 1.0f);
    EXPECT_LE(e.x1, b[2] + 1.0f);
    EXPECT_LE(e.y1, b[3] + 1.0f);
    if (b[2] - b[0] >= 40 && b[3] - b[1] >= 40) {
      EXPECT_GE(iou(b, e), 0.9f) << "label " << k;
      ++fitted;
    }
  }
  return fitted;
}

// Runs `spec` on a fresh sample with `seed` into `out` and checks its boxes (check_boxes).
int run_and_check(DetectionTransformer& transformer, const DetectionSpec& spec, std::uint64_t seed,
                  Bytes& image, Bytes& out, std::vector<bool>& has_box) {
  DetectionTargets targets;
  make_sample(image, targets);
  transformer.run(spec, image, kWidth, kHeight, targets, seed, out);
  return check_boxes(targets, out, has_box);
}

TEST(DetectionProperty, BoxesFollowTheirObjectsThroughTheSsdGeometry) {
  DetectionTransformer transformer;
  const DetectionSpec spec = ssd_geometry(true);
  const DetectionSpec unsanitized = ssd_geometry(false);
  Bytes image, out(static_cast<std::size_t>(kSize) * kSize * 3);
  int fitted = 0, dropped = 0;
  for (std::uint64_t seed = 0; seed < 150; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<bool> has_box;
    fitted += run_and_check(transformer, spec, seed, image, out, has_box);
    // A visible object without a box: its box, before sanitize, is one sanitize drops.
    DetectionTargets before;
    make_sample(image, before);
    transformer.run(unsanitized, image, kWidth, kHeight, before, seed, out);
    for (std::size_t k = 0; k < kObjects.size(); ++k) {
      if (has_box[k] || extent_of(out, k).pixels == 0) continue;
      const float* b = &before.boxes[4 * k];
      const bool zeroed = b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0;
      EXPECT_TRUE(zeroed || b[2] - b[0] < 1 || b[3] - b[1] < 1) << "label " << k;
      ++dropped;
    }
  }
  // The seeds exercise both checks.
  EXPECT_GT(fitted, 50);
  EXPECT_GT(dropped, 0);
}

// Ultralytics' geometry without rotation or shear (its defaults): letterbox, RandomPerspective's
// scale and translation, flip; box_candidates drops boxes, so only the kept ones are checked.
TEST(DetectionProperty, BoxesFollowTheirObjectsThroughTheYoloGeometry) {
  DetectionTransformer transformer;
  DetectionSpec spec;
  spec.size = kSize;
  DetectionStep letterbox;
  letterbox.kind = Kind::kLetterbox;
  letterbox.width = letterbox.height = kSize;
  letterbox.fill = {114, 114, 114};
  DetectionStep perspective;
  perspective.kind = Kind::kPerspective;
  DetectionStep flip;
  flip.kind = Kind::kHorizontalFlip;
  spec.steps = {letterbox, perspective, flip};
  Bytes image, out(static_cast<std::size_t>(kSize) * kSize * 3);
  int fitted = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<bool> has_box;
    fitted += run_and_check(transformer, spec, seed, image, out, has_box);
  }
  EXPECT_GT(fitted, 50);
}

TEST(DetectionProperty, ASeedGivesTheSameBytes) {
  DetectionSpec spec = ssd_geometry(true);
  DetectionStep photometric;
  photometric.kind = Kind::kPhotometricDistort;
  spec.steps.insert(spec.steps.begin(), photometric);
  Bytes image, first(static_cast<std::size_t>(kSize) * kSize * 3), second(first.size());
  DetectionTransformer a, b;
  int differ = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    DetectionTargets ta, tb;
    make_sample(image, ta);
    a.run(spec, image, kWidth, kHeight, ta, seed, first);
    make_sample(image, tb);
    b.run(spec, image, kWidth, kHeight, tb, seed, second);
    EXPECT_EQ(first, second);
    EXPECT_EQ(ta.boxes, tb.boxes);
    EXPECT_EQ(ta.kept, tb.kept);
    // Another seed of the same transformer: its buffers carry nothing over.
    make_sample(image, tb);
    b.run(spec, image, kWidth, kHeight, tb, seed + 1000, second);
    differ += first != second;
  }
  EXPECT_GT(differ, 10);
}

// DetectionResult maps the output back to the source: output = source * scale + pad.
TEST(DetectionProperty, TheResultMapsTheOutputBack) {
  DetectionTransformer transformer;
  Bytes image, out(static_cast<std::size_t>(kSize) * kSize * 3);
  DetectionTargets targets;
  DetectionSpec letterbox;
  letterbox.size = kSize;
  letterbox.steps.resize(1);
  letterbox.steps[0].kind = Kind::kLetterbox;
  letterbox.steps[0].width = letterbox.steps[0].height = kSize;
  make_sample(image, targets);
  // 200 x 150 to 300 x 225, 37 rows above (round(37.5 - 0.1)).
  DetectionResult r = transformer.run(letterbox, image, kWidth, kHeight, targets, 1, out);
  EXPECT_EQ(r.width, kSize);
  EXPECT_FLOAT_EQ(r.scale_x, 1.5f);
  EXPECT_FLOAT_EQ(r.scale_y, 1.5f);
  EXPECT_FLOAT_EQ(r.pad_x, 0);
  EXPECT_FLOAT_EQ(r.pad_y, 37);
  EXPECT_FLOAT_EQ(targets.boxes[1], kObjects[0][1] * 1.5f + 37);
  // A centre crop after a resize shifts: Resize(300) of 200 x 150 is 400 x 300, the crop's
  // corner at (50, 0).
  DetectionSpec eval;
  eval.size = kSize;
  eval.steps.resize(2);
  eval.steps[0].kind = Kind::kResize;
  eval.steps[0].width = kSize;
  eval.steps[1].kind = Kind::kCenterCrop;
  eval.steps[1].width = eval.steps[1].height = kSize;
  make_sample(image, targets);
  r = transformer.run(eval, image, kWidth, kHeight, targets, 1, out);
  EXPECT_FLOAT_EQ(r.scale_x, 2.0f);
  EXPECT_FLOAT_EQ(r.scale_y, 2.0f);
  EXPECT_FLOAT_EQ(r.pad_x, -50);
  EXPECT_FLOAT_EQ(r.pad_y, 0);
}

TEST(DetectionProperty, RunRefusesWhatDoesNotAgree) {
  DetectionTransformer transformer;
  Bytes image, out(static_cast<std::size_t>(kSize) * kSize * 3);
  DetectionTargets targets;
  make_sample(image, targets);
  // A spec validate() refuses: the steps end at an unknown size.
  DetectionSpec unknown = ssd_geometry(true);
  unknown.steps.pop_back();
  unknown.steps.pop_back();
  EXPECT_THROW(transformer.run(unknown, image, kWidth, kHeight, targets, 1, out),
               std::invalid_argument);
  // Instance masks that are not one a box.
  make_sample(image, targets);
  targets.planes = 2;
  targets.masks.assign(2 * static_cast<std::size_t>(kWidth) * kHeight, 0);
  EXPECT_THROW(transformer.run(ssd_geometry(true), image, kWidth, kHeight, targets, 1, out),
               std::invalid_argument);
  // An output of the wrong size.
  make_sample(image, targets);
  Bytes small(12);
  EXPECT_THROW(transformer.run(ssd_geometry(true), image, kWidth, kHeight, targets, 1, small),
               std::invalid_argument);
}

// Four images of different sizes and aspects, object k (one box) in image k, loaded at kSize
// as Ultralytics loads them (load_image).
struct MosaicSample {
  std::array<Bytes, 4> pixels;
  std::array<std::vector<float>, 4> boxes;
  std::array<MosaicImage, 4> images;
};

void make_mosaic_sample(MosaicSample& sample) {
  constexpr std::array<std::array<int, 2>, 4> kSizes{
      {{200, 150}, {150, 220}, {400, 160}, {90, 90}}};
  constexpr std::array<std::array<int, 4>, 4> kMosaicObjects{
      {{20, 30, 150, 120}, {10, 40, 120, 200}, {60, 20, 380, 140}, {10, 10, 80, 60}}};
  for (std::size_t k = 0; k < 4; ++k) {
    const int w = kSizes[k][0], h = kSizes[k][1];
    Bytes rgb(static_cast<std::size_t>(w) * h * 3);
    for (std::size_t i = 0; i < rgb.size(); i += 3) std::copy_n(kBackground.data(), 3, &rgb[i]);
    const auto& o = kMosaicObjects[k];
    for (int y = o[1]; y < o[3]; ++y) {
      for (int x = o[0]; x < o[2]; ++x) {
        std::copy_n(kColours[k].data(), 3, &rgb[(static_cast<std::size_t>(y) * w + x) * 3]);
      }
    }
    sample.boxes[k].assign(o.begin(), o.end());
    MosaicImage& image = sample.images[k];
    load_image(rgb, w, h, kSize, sample.pixels[k], image.width, image.height, sample.boxes[k]);
    image.pixels = sample.pixels[k];
    image.boxes = sample.boxes[k];
  }
}

DetectionSpec mosaic_geometry() {
  DetectionSpec spec;
  spec.size = kSize;
  spec.steps.resize(3);
  spec.steps[0].kind = Kind::kMosaic;
  spec.steps[0].width = kSize;
  spec.steps[1].kind = Kind::kPerspective;
  spec.steps[2].kind = Kind::kHorizontalFlip;
  return spec;
}

// Ultralytics' mosaic, RandomPerspective (scale and translation) and flip: each kept box (its
// index is its image's) encloses its object and fits the large ones.
TEST(DetectionProperty, BoxesFollowTheirObjectsThroughTheMosaic) {
  DetectionTransformer transformer;
  const DetectionSpec spec = mosaic_geometry();
  MosaicSample sample;
  make_mosaic_sample(sample);
  Bytes out(static_cast<std::size_t>(kSize) * kSize * 3);
  int fitted = 0, kept = 0;
  for (std::uint64_t seed = 0; seed < 150; ++seed) {
    SCOPED_TRACE(seed);
    DetectionTargets targets;
    transformer.run_mosaic(spec, sample.images, targets, seed, out);
    std::vector<bool> has_box;
    fitted += check_boxes(targets, out, has_box);
    kept += static_cast<int>(targets.kept.size());
  }
  EXPECT_GT(fitted, 200);
  EXPECT_LT(kept, 4 * 150);  // the seeds cut some objects off
}

// Each image's mask plane (its object's rectangle, or a semantic map of it: k + 1 on a 0
// background) at the loaded size, resized as the loader resizes it (MaskCanvas, nearest).
void add_mosaic_masks(MosaicSample& sample, bool semantic, std::array<Bytes, 4>& masks) {
  for (std::size_t k = 0; k < 4; ++k) {
    const MosaicImage& image = sample.images[k];
    const float* b = sample.boxes[k].data();
    masks[k].assign(static_cast<std::size_t>(image.width) * image.height, 0);
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) {
        // 2 px inside the box: load_image's upscale blends the object's edge over a few pixels.
        if (x + 0.5f > b[0] + 2 && x + 0.5f < b[2] - 2 && y + 0.5f > b[1] + 2 &&
            y + 0.5f < b[3] - 2) {
          masks[k][static_cast<std::size_t>(y) * image.width + x] =
              semantic ? static_cast<std::uint8_t>(k + 1) : 1;
        }
      }
    }
    sample.images[k].masks = masks[k];
  }
}

// The masks move with the pixels through the mosaic, RandomPerspective and the flip: where a
// kept box's plane (or the semantic map's label k + 1) covers a pixel whose neighbours it
// covers too, the image shows object k's colour, and the plane lies within its box. The
// semantic map is 255 where no image's tile reaches.
TEST(DetectionProperty, MasksFollowTheirObjectsThroughTheMosaic) {
  DetectionTransformer transformer;
  const DetectionSpec spec = mosaic_geometry();
  for (const bool semantic : {false, true}) {
    SCOPED_TRACE(semantic ? "semantic" : "instance");
    MosaicSample sample;
    make_mosaic_sample(sample);
    std::array<Bytes, 4> masks;
    add_mosaic_masks(sample, semantic, masks);
    Bytes out(static_cast<std::size_t>(kSize) * kSize * 3);
    const std::size_t plane = static_cast<std::size_t>(kSize) * kSize;
    int covered = 0, ignored = 0;
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
      SCOPED_TRACE(seed);
      DetectionTargets targets;
      targets.semantic = semantic;
      transformer.run_mosaic(spec, sample.images, targets, seed, out);
      ASSERT_EQ(targets.planes, semantic ? 1 : static_cast<int>(targets.kept.size()));
      ASSERT_EQ(targets.masks.size(), plane * static_cast<std::size_t>(targets.planes));
      const std::size_t objects = semantic ? 4 : targets.kept.size();
      for (std::size_t i = 0; i < objects; ++i) {
        const std::size_t k = semantic ? i : targets.kept[i];
        const std::uint8_t* m = targets.masks.data() + (semantic ? 0 : i * plane);
        const std::uint8_t on = semantic ? static_cast<std::uint8_t>(k + 1) : 1;
        const float* box = semantic ? nullptr : &targets.boxes[4 * i];
        for (int y = 1; y + 1 < kSize; ++y) {
          for (int x = 1; x + 1 < kSize; ++x) {
            const std::size_t at = static_cast<std::size_t>(y) * kSize + x;
            if (m[at] != on) continue;
            if (box != nullptr) {
              EXPECT_TRUE(x + 1 >= box[0] && x <= box[2] + 1 && y + 1 >= box[1] && y <= box[3] + 1)
                  << "object " << k << " at " << x << "," << y;
            }
            if (m[at - 1] != on || m[at + 1] != on || m[at - kSize] != on || m[at + kSize] != on) {
              continue;  // the edge: the warp blends the image there
            }
            EXPECT_TRUE(is_object(&out[at * 3], k)) << "object " << k << " at " << x << "," << y;
            ++covered;
          }
        }
      }
      if (semantic) {
        ignored += static_cast<int>(
            std::count(targets.masks.begin(), targets.masks.end(), std::uint8_t{255}));
      }
    }
    EXPECT_GT(covered, 10000);
    if (semantic) {
      EXPECT_GT(ignored, 0);
    }
  }
}

TEST(DetectionProperty, AMosaicSeedGivesTheSameBytes) {
  DetectionSpec spec = mosaic_geometry();
  DetectionStep hsv;
  hsv.kind = Kind::kHsv;
  spec.steps.insert(spec.steps.begin() + 2, hsv);
  MosaicSample sample;
  make_mosaic_sample(sample);
  Bytes first(static_cast<std::size_t>(kSize) * kSize * 3), second(first.size());
  DetectionTransformer a, b;
  int differ = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    DetectionTargets ta, tb;
    a.run_mosaic(spec, sample.images, ta, seed, first);
    b.run_mosaic(spec, sample.images, tb, seed, second);
    EXPECT_EQ(first, second);
    EXPECT_EQ(ta.boxes, tb.boxes);
    EXPECT_EQ(ta.kept, tb.kept);
    b.run_mosaic(spec, sample.images, tb, seed + 1000, second);
    differ += first != second;
  }
  EXPECT_GT(differ, 10);
}

TEST(DetectionProperty, MosaicRefusesWhatDoesNotAgree) {
  DetectionTransformer transformer;
  MosaicSample sample;
  make_mosaic_sample(sample);
  Bytes out(static_cast<std::size_t>(kSize) * kSize * 3), image;
  DetectionTargets targets;
  // run() takes one image: a mosaic needs run_mosaic, and run_mosaic a mosaic.
  make_sample(image, targets);
  EXPECT_THROW(transformer.run(mosaic_geometry(), image, kWidth, kHeight, targets, 1, out),
               std::invalid_argument);
  EXPECT_THROW(transformer.run_mosaic(ssd_geometry(true), sample.images, targets, 1, out),
               std::invalid_argument);
  // Mask planes that are not one a box of their image.
  targets = DetectionTargets{};
  const Bytes wrong(7, 1);
  for (MosaicImage& image : sample.images) image.masks = wrong;
  EXPECT_THROW(transformer.run_mosaic(mosaic_geometry(), sample.images, targets, 1, out),
               std::invalid_argument);
  for (MosaicImage& image : sample.images) image.masks = {};
  // An image whose pixels are fewer than its size says.
  targets = DetectionTargets{};
  sample.images[2].pixels = sample.images[2].pixels.first(30);
  EXPECT_THROW(transformer.run_mosaic(mosaic_geometry(), sample.images, targets, 1, out),
               std::invalid_argument);
}

}  // namespace
}  // namespace feedrate::decode
