#include "bench/micro/decode_bench/decode_paths.h"

#include <cstdint>
#include <stdexcept>

#include "bench/micro/decode_bench/commands.h"
#include "decode/image_decoder.h"
#include "decode/random.h"
#include "decode/resize.h"
#include "decode/transform.h"

namespace feedrate::decode_bench {

// 1. decode_full against tjbench, image by image.
Row full_decode(const std::vector<Image>& images, const std::string& tjbench, const Args& args) {
  Row row{"full decode, 1 thread", "decode_full", "tjbench", {}, {}, kFullTarget, {}};
  decode::ImageDecoder decoder;
  std::vector<std::uint8_t> rgb;
  for (int repeat = 0; repeat < args.repeats; ++repeat) {
    std::vector<double> ours, theirs;
    for (const Image& image : images) {
      const auto feedrate = [&] {
        ours.push_back(rate(args.warmup, args.seconds, [&] {
          if (!decoder.decode_full(image.bytes, rgb).ok()) throw std::runtime_error("decode");
        }));
      };
      const auto reference = [&] { theirs.push_back(tjbench_rate(tjbench, image, args)); };
      if (repeat % 2 == 0) {
        feedrate();
        reference();
      } else {
        reference();
        feedrate();
      }
    }
    row.subject_runs.push_back(harmonic(ours));
    row.reference_runs.push_back(harmonic(theirs));
  }
  return row;
}

// 2. The train path against decode_full + the same resampler over the crop, same crops.
Row train_path(const std::vector<Image>& images, const Args& args, double* scaled_share) {
  Row row{"train path (RandomResizedCrop 224 + flip), 1 thread",
          "decode (ROI+DCT)",
          "full+resize",
          {},
          {},
          kTrainTarget,
          {}};
  const TransformSpec spec;  // RandomResizedCrop(224), flip 0.5
  const std::size_t out_bytes = static_cast<std::size_t>(spec.size) * spec.size * 3;
  decode::ImageDecoder decoder;
  decode::Resampler resampler;
  std::vector<std::uint8_t> rgb, out(out_bytes);
  std::uint64_t scaled = 0, decodes = 0;
  const auto feedrate = [&](std::uint64_t k) {
    const Image& image = images[k % images.size()];
    if (!decoder.decode(image.bytes, spec, k, out).ok()) throw std::runtime_error("decode");
    scaled += decoder.info().scale_denom > 1;
    ++decodes;
  };
  const auto reference = [&](std::uint64_t k) {
    const Image& image = images[k % images.size()];
    decode::Rng rng(k);
    if (!decoder.decode_full(image.bytes, rgb).ok()) throw std::runtime_error("decode");
    resampler.prepare(decode::plan_transform(spec, image.width, image.height, rng));
    resampler.run(rgb.data(), static_cast<std::size_t>(image.width) * 3, 0, 0, out.data());
  };
  take_turns(images.size(), args, feedrate, reference, row);
  *scaled_share = static_cast<double>(scaled) / static_cast<double>(decodes);
  return row;
}

// 2b. The train path on packed JPEGs against the same path on the originals, same crops, taking
// turns crop by crop; `read_share` gets the entropy-coded bytes the packed decodes read.
Row packed_train_path(const std::vector<Image>& images, const Args& args, double* read_share) {
  Row row{"train path, packed vs original, 1 thread",
          "decode (packed)",
          "decode (orig.)",
          {},
          {},
          0,
          {}};
  const TransformSpec spec;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(spec.size) * spec.size * 3);
  decode::ImageDecoder decoder;
  std::uint64_t scan = 0, read = 0;
  const auto packed = [&](std::uint64_t k) {
    if (!decoder.decode(images[k % images.size()].packed, spec, k, out).ok()) {
      throw std::runtime_error("decode");
    }
    scan += decoder.info().scan_bytes;
    read += decoder.info().scan_bytes_read;
  };
  const auto original = [&](std::uint64_t k) {
    if (!decoder.decode(images[k % images.size()].bytes, spec, k, out).ok()) {
      throw std::runtime_error("decode");
    }
  };
  take_turns(images.size(), args, packed, original, row);
  *read_share = scan > 0 ? static_cast<double>(read) / static_cast<double>(scan) : 1;
  return row;
}

}  // namespace feedrate::decode_bench
