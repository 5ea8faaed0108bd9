// Fuzzes the JPEG decode path with its limits: the header check, the train and eval transforms
// (ROI + DCT-scaled decode, resize, flip) and a full decode, through decode::ImageDecoder as the
// loader's workers use it. Any input must decode or give a status with a message; a decoded
// image must have the declared size (limits and transforms: tests/fuzz/decode_fuzz.h).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "decode/image_decoder.h"
#include "tests/fuzz/decode_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace feedrate;
  static decode::ImageDecoder decoder(fuzz::kDecodeLimits);
  static std::vector<std::uint8_t> rgb;
  const std::span<const std::uint8_t> jpeg(data, size);
  fuzz::decode_transformed(decoder, jpeg);
  fuzz::check_full(decoder.decode_full(jpeg, rgb), rgb, decoder.info().width,
                   decoder.info().height);
  return 0;
}
