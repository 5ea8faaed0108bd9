// Fuzzes the TIFF decoder alone (decode_tiff_full, decode/format.h), whatever the first bytes: any
// input must fail with a message or give the pixels it declares (tests/fuzz/decode_fuzz.h).
#include <cstddef>
#include <cstdint>

#include "decode/format.h"
#include "tests/fuzz/decode_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  feedrate::fuzz::check_whole_image(feedrate::decode::decode_tiff_full, {data, size}, "TIFF");
  return 0;
}
