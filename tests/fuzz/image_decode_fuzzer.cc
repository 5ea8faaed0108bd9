// Fuzzes the decode stage's entry point, decode::Decoder, on every format it sniffs (PNG, WebP,
// TIFF, BMP, PNM, and JPEG through the crop-aware path): the train and eval transforms and a
// full decode. Any input must decode or give a status with a message; a decoded image must have
// its declared size, and the transforms and the full decode must agree on success. The pixel
// limit is 4 MP, as in fuzz_jpeg_decode, so that a valid huge image stays cheap.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "decode/decoder.h"

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
  static Decoder decoder(DecodeLimits{4'000'000, DecodeLimits{}.max_scans});
  static std::vector<std::uint8_t> out(96 * 96 * 3), rgb;
  const std::span<const std::uint8_t> bytes(data, size);
  const std::uint64_t seed = size > 0 ? data[size - 1] : 0;

  TransformSpec train;
  train.size = 96;
  const DecodeStatus trained = decoder.decode(bytes, train, seed, out);
  check(trained, "train");
  TransformSpec eval;
  eval.kind = TransformKind::kEval;
  eval.size = 64;
  eval.resize = 72;
  check(decoder.decode(bytes, eval, seed, out), "eval");
  const DecodeStatus full = decoder.decode_full(bytes, rgb);
  check(full, "full");
  if (full.ok() && rgb.size() != static_cast<std::size_t>(decoder.width()) *
                                     static_cast<std::size_t>(decoder.height()) * 3) {
    std::fprintf(stderr, "full decode of %dx%d gave %zu bytes\n", decoder.width(), decoder.height(),
                 rgb.size());
    std::abort();
  }
  // Whole-image formats decode the same bytes whatever the transform (JPEG may stop early).
  if (decoder.format() != ImageFormat::kJpeg && trained.ok() != full.ok()) {
    std::fprintf(stderr, "train %s but full %s\n", errc_name(trained.code), errc_name(full.code));
    std::abort();
  }
  return 0;
}
