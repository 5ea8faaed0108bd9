// Fuzzes the decode stage's entry point, decode::Decoder, on every format it sniffs (PNG, WebP,
// TIFF, BMP, PNM, and JPEG through the crop-aware path): the train and eval transforms and a
// full decode (limits and transforms: tests/fuzz/decode_fuzz.h). Any input must decode or give
// a status with a message; a decoded image must have its declared size; for the whole-image
// formats the transforms and the full decode must agree on success.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "decode/decoder.h"
#include "tests/fuzz/decode_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace feedrate;
  static decode::Decoder decoder(fuzz::kDecodeLimits);
  static std::vector<std::uint8_t> rgb;
  const std::span<const std::uint8_t> bytes(data, size);
  const decode::DecodeStatus trained = fuzz::decode_transformed(decoder, bytes);
  const decode::DecodeStatus full = decoder.decode_full(bytes, rgb);
  fuzz::check_full(full, rgb, decoder.width(), decoder.height());
  // JPEG may stop decoding above a damaged row the crop never reads; the others decode whole.
  if (decoder.format() != decode::ImageFormat::kJpeg && trained.ok() != full.ok()) {
    std::fprintf(stderr, "train %s but full %s\n", decode::errc_name(trained.code),
                 decode::errc_name(full.code));
    std::abort();
  }
  return 0;
}
