// Tests for decode/resize (Resampler): exact cases (identity, constant colour, mirror, 2x
// downscale with the antialiased triangle kernel), the source rectangle prepare() reports, and
// agreement with a reference written here from PIL's precompute_coeffs (double precision,
// horizontal then vertical, no intermediate rounding) on random images and plans.

#include "decode/resize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "decode/random.h"
#include "decode/transform.h"

namespace feedrate::decode {
namespace {

using Pixels = std::vector<std::uint8_t>;

struct Image {
  int width = 0, height = 0;
  Pixels rgb;  // packed RGB, stride width * 3
  std::uint8_t at(int x, int y, int c) const {
    return rgb[(static_cast<std::size_t>(y) * width + x) * 3 + c];
  }
};

Image random_image(std::mt19937_64& gen, int width, int height) {
  Image image{width, height, Pixels(static_cast<std::size_t>(width) * height * 3)};
  std::uniform_int_distribution<int> byte(0, 255);
  for (auto& v : image.rgb) v = static_cast<std::uint8_t>(byte(gen));
  return image;
}

ResizePlan whole_image_plan(int width, int height, int out_w, int out_h) {
  ResizePlan plan;
  plan.box_w = width;
  plan.box_h = height;
  plan.out_w = plan.win_w = out_w;
  plan.out_h = plan.win_h = out_h;
  plan.clip_x1 = width;
  plan.clip_y1 = height;
  return plan;
}

// Runs `plan` over the whole of `image`.
Pixels resample(Resampler& resampler, const Image& image, const ResizePlan& plan) {
  resampler.prepare(plan);
  Pixels out(static_cast<std::size_t>(plan.win_w) * plan.win_h * 3);
  resampler.run(image.rgb.data(), static_cast<std::size_t>(image.width) * 3, 0, 0, out.data());
  return out;
}

Pixels resample(const Image& image, const ResizePlan& plan) {
  Resampler resampler;
  return resample(resampler, image, plan);
}

// ---- Reference: PIL's ImagingResample with the bilinear filter, written independently. -------

struct RefCoeffs {
  std::vector<int> xmin, xsize;        // in clip-relative coordinates
  std::vector<std::vector<double>> k;  // normalised weights
};

double bilinear_filter(double x) {
  if (x < 0) x = -x;
  return x < 1 ? 1 - x : 0;
}

// precompute_coeffs(inSize, in0, in1, outSize) for output indices [first, first + count); the
// input is the clip region (torchvision crops first), so coordinates are clip-relative.
RefCoeffs pil_coeffs(int in_size, double in0, double in1, int out_size, int first, int count) {
  RefCoeffs c;
  const double scale = (in1 - in0) / out_size;
  const double filterscale = scale < 1.0 ? 1.0 : scale;
  const double support = 1.0 * filterscale;
  const double ss = 1.0 / filterscale;
  for (int xx = first; xx < first + count; ++xx) {
    const double center = in0 + (xx + 0.5) * scale;
    int xmin = static_cast<int>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int xmax = static_cast<int>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    std::vector<double> k(static_cast<std::size_t>(std::max(xmax, 0)));
    double ww = 0;
    for (int x = 0; x < xmax; ++x) {
      k[x] = bilinear_filter((x + xmin - center + 0.5) * ss);
      ww += k[x];
    }
    for (double& w : k) {
      if (ww != 0) w /= ww;
    }
    c.xmin.push_back(xmin);
    c.xsize.push_back(xmax);
    c.k.push_back(std::move(k));
  }
  return c;
}

// The plan's window as torchvision computes it: crop to the clip, resize the box (relative to
// the clip) to out_w x out_h, take the window, mirror. Values before the final rounding.
std::vector<double> reference_unrounded(const Image& image, const ResizePlan& plan) {
  const int cw = plan.clip_x1 - plan.clip_x0, ch = plan.clip_y1 - plan.clip_y0;
  const RefCoeffs h =
      pil_coeffs(cw, plan.box_x - plan.clip_x0, plan.box_x - plan.clip_x0 + plan.box_w, plan.out_w,
                 plan.win_x, plan.win_w);
  const RefCoeffs v =
      pil_coeffs(ch, plan.box_y - plan.clip_y0, plan.box_y - plan.clip_y0 + plan.box_h, plan.out_h,
                 plan.win_y, plan.win_h);
  // Horizontal pass over every clip row, then vertical.
  std::vector<double> rows(static_cast<std::size_t>(ch) * plan.win_w * 3);
  for (int y = 0; y < ch; ++y) {
    for (int i = 0; i < plan.win_w; ++i) {
      for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (int t = 0; t < h.xsize[i]; ++t) {
          sum += h.k[i][t] * image.at(plan.clip_x0 + h.xmin[i] + t, plan.clip_y0 + y, c);
        }
        rows[(static_cast<std::size_t>(y) * plan.win_w + i) * 3 + c] = sum;
      }
    }
  }
  std::vector<double> out(static_cast<std::size_t>(plan.win_h) * plan.win_w * 3);
  for (int j = 0; j < plan.win_h; ++j) {
    for (int i = 0; i < plan.win_w; ++i) {
      const int oi = plan.flip ? plan.win_w - 1 - i : i;
      for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (int t = 0; t < v.xsize[j]; ++t) {
          const std::size_t row = static_cast<std::size_t>(v.xmin[j] + t);
          sum += v.k[j][t] * rows[(row * plan.win_w + i) * 3 + c];
        }
        out[(static_cast<std::size_t>(j) * plan.win_w + oi) * 3 + c] = sum;
      }
    }
  }
  return out;
}

Pixels round_to_bytes(const std::vector<double>& values) {
  Pixels out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    out[i] = static_cast<std::uint8_t>(std::clamp(std::floor(values[i] + 0.5), 0.0, 255.0));
  }
  return out;
}

int max_abs_diff(const Pixels& a, const Pixels& b) {
  EXPECT_EQ(a.size(), b.size());
  int worst = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst;
}

// A random plan of one of three kinds: torchvision train, torchvision eval, or an arbitrary
// fractional box (as scale_plan produces) with the clip its enclosing pixels.
ResizePlan random_plan(std::mt19937_64& gen, int width, int height, std::string* kind) {
  std::uniform_int_distribution<int> pick(0, 2);
  std::uniform_int_distribution<int> size(1, 96);
  Rng rng(gen());
  switch (pick(gen)) {
    case 0: {
      TransformSpec spec;
      spec.size = size(gen);
      spec.scale_min = 0.02;
      *kind = "train";
      return plan_transform(spec, width, height, rng);
    }
    case 1: {
      TransformSpec spec;
      spec.kind = TransformKind::kEval;
      spec.size = size(gen);
      spec.resize = spec.size + std::uniform_int_distribution<int>(0, 40)(gen);
      *kind = "eval";
      ResizePlan plan = plan_transform(spec, width, height, rng);
      plan.flip = gen() & 1;
      return plan;
    }
    default: {
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      ResizePlan plan;
      plan.box_x = unit(gen) * (width - 1);
      plan.box_y = unit(gen) * (height - 1);
      plan.box_w = std::max(0.25, unit(gen) * (width - plan.box_x));
      plan.box_h = std::max(0.25, unit(gen) * (height - plan.box_y));
      plan.out_w = size(gen);
      plan.out_h = size(gen);
      plan.win_w = std::uniform_int_distribution<int>(1, plan.out_w)(gen);
      plan.win_h = std::uniform_int_distribution<int>(1, plan.out_h)(gen);
      plan.win_x = std::uniform_int_distribution<int>(0, plan.out_w - plan.win_w)(gen);
      plan.win_y = std::uniform_int_distribution<int>(0, plan.out_h - plan.win_h)(gen);
      plan.clip_x0 = static_cast<int>(std::floor(plan.box_x));
      plan.clip_y0 = static_cast<int>(std::floor(plan.box_y));
      plan.clip_x1 = std::min(width, static_cast<int>(std::ceil(plan.box_x + plan.box_w)));
      plan.clip_y1 = std::min(height, static_cast<int>(std::ceil(plan.box_y + plan.box_h)));
      plan.flip = gen() & 1;
      *kind = "box";
      return plan;
    }
  }
}

std::string describe(const ResizePlan& p) {
  return "box " + std::to_string(p.box_x) + "," + std::to_string(p.box_y) + " " +
         std::to_string(p.box_w) + "x" + std::to_string(p.box_h) + " out " +
         std::to_string(p.out_w) + "x" + std::to_string(p.out_h) + " win " +
         std::to_string(p.win_x) + "," + std::to_string(p.win_y) + " " + std::to_string(p.win_w) +
         "x" + std::to_string(p.win_h) + " clip " + std::to_string(p.clip_x0) + "," +
         std::to_string(p.clip_y0) + "-" + std::to_string(p.clip_x1) + "," +
         std::to_string(p.clip_y1) + (p.flip ? " flip" : "");
}

// ---- Exact cases. -----------------------------------------------------------------------------

TEST(Resampler, IdentityPlanReproducesTheInput) {
  std::mt19937_64 gen(1);
  for (const auto& [w, h] : {std::pair{1, 1}, {7, 5}, {64, 48}, {97, 33}}) {
    const Image image = random_image(gen, w, h);
    EXPECT_EQ(resample(image, whole_image_plan(w, h, w, h)), image.rgb) << w << "x" << h;
  }
}

TEST(Resampler, ConstantColourStaysConstant) {
  std::mt19937_64 gen(2);
  const std::uint8_t colours[][3] = {{0, 0, 0}, {255, 255, 255}, {17, 128, 254}, {1, 200, 99}};
  for (const auto& colour : colours) {
    Image image{61, 47, Pixels(61 * 47 * 3)};
    for (std::size_t i = 0; i < image.rgb.size(); ++i) image.rgb[i] = colour[i % 3];
    for (int trial = 0; trial < 40; ++trial) {
      std::string kind;
      const ResizePlan plan = random_plan(gen, image.width, image.height, &kind);
      const Pixels out = resample(image, plan);
      for (std::size_t i = 0; i < out.size(); ++i) {
        ASSERT_EQ(out[i], colour[i % 3]) << kind << " " << describe(plan) << " at " << i;
      }
    }
    // Large down- and upscales of the whole image.
    for (const auto& [ow, oh] : {std::pair{3, 2}, {1, 1}, {500, 300}, {122, 47}}) {
      const Pixels out = resample(image, whole_image_plan(61, 47, ow, oh));
      for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], colour[i % 3]);
    }
  }
}

TEST(Resampler, FlipIsAnExactMirror) {
  std::mt19937_64 gen(3);
  for (int trial = 0; trial < 100; ++trial) {
    const Image image = random_image(gen, 40 + trial % 17, 30 + trial % 11);
    std::string kind;
    ResizePlan plan = random_plan(gen, image.width, image.height, &kind);
    plan.flip = false;
    const Pixels plain = resample(image, plan);
    plan.flip = true;
    const Pixels mirrored = resample(image, plan);
    for (int y = 0; y < plan.win_h; ++y) {
      for (int x = 0; x < plan.win_w; ++x) {
        for (int c = 0; c < 3; ++c) {
          const std::size_t a = (static_cast<std::size_t>(y) * plan.win_w + x) * 3 + c;
          const std::size_t b =
              (static_cast<std::size_t>(y) * plan.win_w + (plan.win_w - 1 - x)) * 3 + c;
          ASSERT_EQ(plain[a], mirrored[b]) << kind << " " << describe(plan);
        }
      }
    }
  }
}

TEST(Resampler, TwoTimesDownscaleUsesTheWidenedTriangle) {
  // Downscaling by 2 widens the triangle to support 2: output i is centred on source 2i + 1 and
  // the taps 2i-1, 2i, 2i+1, 2i+2 sit at distances 1.5, 0.5, 0.5, 1.5, i.e. weights
  // (1 - d/2) = 1/4, 3/4, 3/4, 1/4, normalised to 1/8, 3/8, 3/8, 1/8. At the image border the
  // missing tap is dropped and the rest renormalised (3/7, 3/7, 1/7).
  std::mt19937_64 gen(4);
  const Image image = random_image(gen, 32, 24);
  const Pixels out = resample(image, whole_image_plan(32, 24, 16, 12));
  const double kernel[4] = {1, 3, 3, 1};
  auto weights = [&](int i, int size, int* first) {
    std::vector<double> w;
    *first = std::max(2 * i - 1, 0);
    double total = 0;
    for (int t = 0; t < 4; ++t) {
      const int x = 2 * i - 1 + t;
      if (x < 0 || x >= size) continue;
      w.push_back(kernel[t]);
      total += kernel[t];
    }
    for (double& v : w) v /= total;
    return w;
  };
  for (int j = 0; j < 12; ++j) {
    int y0 = 0;
    const std::vector<double> wy = weights(j, 24, &y0);
    for (int i = 0; i < 16; ++i) {
      int x0 = 0;
      const std::vector<double> wx = weights(i, 32, &x0);
      for (int c = 0; c < 3; ++c) {
        double expected = 0;
        for (std::size_t b = 0; b < wy.size(); ++b) {
          for (std::size_t a = 0; a < wx.size(); ++a) {
            const int x = x0 + static_cast<int>(a), y = y0 + static_cast<int>(b);
            expected += wy[b] * wx[a] * image.at(x, y, c);
          }
        }
        const int got = out[(static_cast<std::size_t>(j) * 16 + i) * 3 + c];
        // Round to nearest; a value within 1e-3 of a half may go either way in float.
        const double frac = expected - std::floor(expected);
        if (std::abs(frac - 0.5) < 1e-3) {
          EXPECT_TRUE(got == std::floor(expected) || got == std::ceil(expected));
        } else {
          EXPECT_EQ(got, static_cast<int>(std::floor(expected + 0.5)))
              << "out (" << i << "," << j << ") channel " << c << " expected " << expected;
        }
      }
    }
  }
}

// ---- The source rectangle. --------------------------------------------------------------------

TEST(Resampler, SourceRectCoversEveryTapAndStaysInTheClip) {
  std::mt19937_64 gen(5);
  for (int trial = 0; trial < 300; ++trial) {
    const int w = std::uniform_int_distribution<int>(1, 120)(gen);
    const int h = std::uniform_int_distribution<int>(1, 120)(gen);
    std::string kind;
    const ResizePlan plan = random_plan(gen, w, h, &kind);
    SCOPED_TRACE(kind + " " + describe(plan));
    Resampler resampler;
    const SourceRect rect = resampler.prepare(plan);
    EXPECT_GE(rect.x0, plan.clip_x0);
    EXPECT_GE(rect.y0, plan.clip_y0);
    EXPECT_LE(rect.x1, plan.clip_x1);
    EXPECT_LE(rect.y1, plan.clip_y1);
    ASSERT_LT(rect.x0, rect.x1);
    ASSERT_LT(rect.y0, rect.y1);
    // Every source pixel with a non-zero weight in the reference lies inside the rectangle.
    const RefCoeffs hc =
        pil_coeffs(plan.clip_x1 - plan.clip_x0, plan.box_x - plan.clip_x0,
                   plan.box_x - plan.clip_x0 + plan.box_w, plan.out_w, plan.win_x, plan.win_w);
    const RefCoeffs vc =
        pil_coeffs(plan.clip_y1 - plan.clip_y0, plan.box_y - plan.clip_y0,
                   plan.box_y - plan.clip_y0 + plan.box_h, plan.out_h, plan.win_y, plan.win_h);
    for (int axis = 0; axis < 2; ++axis) {
      const RefCoeffs& c = axis == 0 ? hc : vc;
      const int offset = axis == 0 ? plan.clip_x0 : plan.clip_y0;
      const int lo = axis == 0 ? rect.x0 : rect.y0, hi = axis == 0 ? rect.x1 : rect.y1;
      for (std::size_t i = 0; i < c.k.size(); ++i) {
        for (int t = 0; t < c.xsize[i]; ++t) {
          if (c.k[i][t] == 0) continue;
          const int x = offset + c.xmin[i] + t;
          ASSERT_GE(x, lo) << "axis " << axis << " output " << i;
          ASSERT_LT(x, hi) << "axis " << axis << " output " << i;
        }
      }
    }
  }
}

TEST(Resampler, ReadsNothingOutsideTheSourceRect) {
  // Give run() only the rectangle prepare() returned, inside a frame of pixels that are 0 in one
  // run and 255 in another: the outputs must not differ, and must match the whole-image run.
  std::mt19937_64 gen(6);
  for (int trial = 0; trial < 200; ++trial) {
    const Image image = random_image(gen, std::uniform_int_distribution<int>(2, 90)(gen),
                                     std::uniform_int_distribution<int>(2, 90)(gen));
    std::string kind;
    const ResizePlan plan = random_plan(gen, image.width, image.height, &kind);
    SCOPED_TRACE(kind + " " + describe(plan));
    Resampler resampler;
    const SourceRect rect = resampler.prepare(plan);
    const int rw = rect.x1 - rect.x0, rh = rect.y1 - rect.y0;
    constexpr int kFrame = 8;
    const int fw = rw + 2 * kFrame, fh = rh + 2 * kFrame;
    Pixels outputs[2];
    for (int fill = 0; fill < 2; ++fill) {
      Pixels framed(static_cast<std::size_t>(fw) * fh * 3, fill ? 255 : 0);
      for (int y = 0; y < rh; ++y) {
        std::copy_n(&image.rgb[(static_cast<std::size_t>(rect.y0 + y) * image.width + rect.x0) * 3],
                    rw * 3, &framed[(static_cast<std::size_t>(y + kFrame) * fw + kFrame) * 3]);
      }
      outputs[fill].resize(static_cast<std::size_t>(plan.win_w) * plan.win_h * 3);
      resampler.run(&framed[(static_cast<std::size_t>(kFrame) * fw + kFrame) * 3],
                    static_cast<std::size_t>(fw) * 3, rect.x0, rect.y0, outputs[fill].data());
    }
    ASSERT_EQ(outputs[0], outputs[1]);
    ASSERT_EQ(outputs[0], resample(image, plan));
  }
}

// ---- Against the reference. -------------------------------------------------------------------

TEST(Resampler, MatchesPilReferenceOnRandomImagesAndPlans) {
  std::mt19937_64 gen(7);
  Resampler reused;  // also checks that state from earlier plans does not leak into later ones
  int worst = 0;
  double total_diff = 0;
  std::size_t values = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const Image image = random_image(gen, std::uniform_int_distribution<int>(1, 160)(gen),
                                     std::uniform_int_distribution<int>(1, 160)(gen));
    std::string kind;
    const ResizePlan plan = random_plan(gen, image.width, image.height, &kind);
    SCOPED_TRACE(kind + " " + describe(plan) + " image " + std::to_string(image.width) + "x" +
                 std::to_string(image.height));
    const Pixels expected = round_to_bytes(reference_unrounded(image, plan));
    const Pixels got = resample(reused, image, plan);
    const int diff = max_abs_diff(got, expected);
    ASSERT_LE(diff, 1);
    ASSERT_EQ(got, resample(image, plan)) << "a reused Resampler differs from a fresh one";
    worst = std::max(worst, diff);
    for (std::size_t i = 0; i < got.size(); ++i) total_diff += std::abs(got[i] - expected[i]);
    values += got.size();
  }
  std::cout << "resampler vs PIL reference: max abs diff " << worst << ", mean abs diff "
            << total_diff / static_cast<double>(values) << "\n";
  RecordProperty("max_abs_diff", worst);
}

TEST(Resampler, MatchesPilReferenceOnLargeDownscales) {
  // ImageNet-like sizes: 500x375 eval (1.46x) and 1600x1200 to 224 (7x, 15 taps per axis).
  std::mt19937_64 gen(8);
  for (const auto& [w, h, ow, oh] : {std::tuple{500, 375, 341, 256},
                                     {1600, 1200, 224, 224},
                                     {1200, 1600, 256, 341},
                                     {50, 40, 224, 224}}) {
    const Image image = random_image(gen, w, h);
    const ResizePlan plan = whole_image_plan(w, h, ow, oh);
    EXPECT_LE(max_abs_diff(resample(image, plan), round_to_bytes(reference_unrounded(image, plan))),
              1)
        << w << "x" << h << " -> " << ow << "x" << oh;
  }
}

}  // namespace
}  // namespace feedrate::decode
