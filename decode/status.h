// The outcome of decoding one image: per-sample problems are data, not exceptions, so that a
// policy upstream can skip the sample or stop the epoch. Messages say what is wrong with the
// image; the caller adds the file name.
#pragma once

#include <string>

namespace feedrate::decode {

enum class DecodeErrc {
  kOk,
  kEmpty,         // zero bytes
  kNotJpeg,       // no SOI marker
  kCorrupt,       // libjpeg reported a fatal error
  kTruncated,     // data ends before the image does
  kTooLarge,      // declared size above the pixel limit
  kTooManyScans,  // progressive scan count above the limit (decompression bomb)
};

const char* errc_name(DecodeErrc code);

struct DecodeStatus {
  DecodeErrc code = DecodeErrc::kOk;
  std::string message;
  bool ok() const { return code == DecodeErrc::kOk; }
};

}  // namespace feedrate::decode
