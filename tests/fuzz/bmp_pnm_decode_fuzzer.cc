// Fuzzes the two decoders parsed here, BMP and PNM (decode_bmp_full, decode_pnm_full), on
// every input, whatever its first bytes: each must fail with a message or give the pixels it
// declares (tests/fuzz/decode_fuzz.h).
#include <cstddef>
#include <cstdint>

#include "decode/format.h"
#include "tests/fuzz/decode_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  feedrate::fuzz::check_whole_image(feedrate::decode::decode_bmp_full, {data, size}, "BMP");
  feedrate::fuzz::check_whole_image(feedrate::decode::decode_pnm_full, {data, size}, "PNM");
  return 0;
}
