#include <cstdio>
// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>

#include <cstdint>

#include "bench/micro/decode_bench/scale_costs.h"
#include "decode/image_decoder.h"
#include "decode/resize.h"
#include "decode/transform.h"

namespace feedrate::decode_bench {

int half_scale_output(int side) {
  return static_cast<int>((side + 1) / 2 / decode::kScaledPixelsPerOutput);
}

std::vector<ScaleCost> scale_costs(const std::vector<Image>& images, const Args& args) {
  std::vector<ScaleCost> costs(8);
  for (int i = 0; i < 8; ++i) {
    costs[i].num = i + 1;
    const auto keeps = [&](int side) {
      return (side * (i + 1) + 7) / 8 >= decode::kScaledPixelsPerOutput * half_scale_output(side);
    };
    costs[i].keeps_enough = keeps(images[0].width) && keeps(images[0].height);
  }
  jpeg_decompress_struct cinfo{};
  jpeg_error_mgr error{};
  cinfo.err = jpeg_std_error(&error);  // the images decoded once already: an error exits
  jpeg_create_decompress(&cinfo);
  std::vector<std::uint8_t> pixels, out;
  decode::Resampler resampler;
  std::size_t next = 0;
  const auto decode_next = [&](int num, bool resize) {
    const Image& image = images[next++ % images.size()];
    jpeg_mem_src(&cinfo, image.bytes.data(), static_cast<unsigned long>(image.bytes.size()));
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_RGB;
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.scale_num = static_cast<unsigned>(num);
    cinfo.scale_denom = 8;
    jpeg_start_decompress(&cinfo);
    const std::size_t stride = static_cast<std::size_t>(cinfo.output_width) * 3;
    pixels.resize(stride * cinfo.output_height);
    while (cinfo.output_scanline < cinfo.output_height) {
      JSAMPROW rows[1] = {&pixels[cinfo.output_scanline * stride]};
      jpeg_read_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_decompress(&cinfo);
    if (!resize) return;
    decode::ResizePlan plan;
    plan.box_w = image.width;
    plan.box_h = image.height;
    plan.out_w = plan.win_w = half_scale_output(image.width);
    plan.out_h = plan.win_h = half_scale_output(image.height);
    plan.clip_x1 = image.width;
    plan.clip_y1 = image.height;
    const int width = static_cast<int>(cinfo.output_width);
    const int height = static_cast<int>(cinfo.output_height);
    resampler.prepare(decode::scale_plan(plan, num / 8.0, num / 8.0, width, height));
    out.resize(static_cast<std::size_t>(plan.out_w) * plan.out_h * 3);
    resampler.run(pixels.data(), stride, 0, 0, out.data());
  };
  const double seconds = args.seconds * static_cast<double>(images.size()) / 8;
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    for (int i = 0; i < 8; ++i) {
      ScaleCost& cost = costs[repeat % 2 == 0 ? i : 7 - i];
      cost.decode_runs.push_back(rate(args.warmup, seconds, [&] { decode_next(cost.num, false); }));
      cost.decode_resize_runs.push_back(
          rate(args.warmup, seconds, [&] { decode_next(cost.num, true); }));
    }
  }
  jpeg_destroy_decompress(&cinfo);
  return costs;
}

bool decoder_candidate(int num) {
  for (int denom : decode::kDctScaleDenominators) {
    if (num * denom == 8) return true;
  }
  return false;
}

bool half_is_cheapest(const std::vector<ScaleCost>& costs) {
  const double half = costs[3].decode_resize_rate();
  for (const ScaleCost& cost : costs) {
    if (cost.keeps_enough && cost.decode_resize_rate() > half) return false;
  }
  return true;
}

}  // namespace feedrate::decode_bench
