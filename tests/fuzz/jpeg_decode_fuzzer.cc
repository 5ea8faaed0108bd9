// Fuzzes the JPEG decode path with its limits: the header check, the train and eval transforms
// (ROI + DCT-scaled decode, resize, flip) and a full decode, through decode::ImageDecoder as the
// loader's workers use it. Any input must decode or give a status with a message; a decoded
// image must have the declared size. The pixel limit is lowered to 4 MP (the default is 100 MP)
// so that a valid but huge image costs milliseconds, not seconds, per input; the scan cap is
// the default.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "decode/image_decoder.h"

namespace {

using namespace feedrate::decode;

void check(const DecodeStatus& status, const char* what) {
  if (!status.ok() && status.message.empty()) {
    std::fprintf(stderr, "%s: %s without a message\n", what, errc_name(status.code));
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ImageDecoder decoder(DecodeLimits{4'000'000, DecodeLimits{}.max_scans});
  static std::vector<std::uint8_t> out(96 * 96 * 3), rgb;
  const std::span<const std::uint8_t> jpeg(data, size);
  // The last byte picks the transform's seed, so that the fuzzer can steer the crop.
  const std::uint64_t seed = size > 0 ? data[size - 1] : 0;

  TransformSpec train;
  train.size = 96;
  check(decoder.decode(jpeg, train, seed, out), "train");
  TransformSpec eval;
  eval.kind = TransformKind::kEval;
  eval.size = 64;
  eval.resize = 72;
  check(decoder.decode(jpeg, eval, seed, out), "eval");
  const DecodeStatus full = decoder.decode_full(jpeg, rgb);
  check(full, "full");
  if (full.ok() && rgb.size() != static_cast<std::size_t>(decoder.info().width) *
                                     static_cast<std::size_t>(decoder.info().height) * 3) {
    std::fprintf(stderr, "full decode of %dx%d gave %zu bytes\n", decoder.info().width,
                 decoder.info().height, rgb.size());
    std::abort();
  }
  return 0;
}
