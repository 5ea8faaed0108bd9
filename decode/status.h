// The outcome of decoding one image: per-sample problems are data, not exceptions, so that a
// policy upstream can skip the sample or stop the epoch. Messages say what is wrong with the
// image; the caller adds the file name. A warning is an error only under WarningPolicy::kReject
// (feedrate/decode_spec.h).
#pragma once

#include <string>

#include "feedrate/decode_spec.h"

namespace feedrate::decode {

enum class DecodeErrc {
  kOk,
  kEmpty,         // zero bytes
  kNotJpeg,       // no SOI marker (the JPEG decoder alone)
  kNotImage,      // the first bytes match no supported format
  kUnsupported,   // a known format in a variant not supported (e.g. 1-bit BMP, animated WebP)
  kCorrupt,       // the codec reported a fatal error (bad data, CRC mismatch)
  kTruncated,     // data ends before the image does
  kTooLarge,      // declared size above the pixel limit
  kTooManyScans,  // progressive scan count above the limit (decompression bomb)
  kWarning,       // libjpeg warned (corrupt but decodable data) and the policy rejects warnings
};

const char* errc_name(DecodeErrc code);

const char* warning_policy_name(WarningPolicy policy);

struct DecodeStatus {
  DecodeErrc code = DecodeErrc::kOk;
  std::string message;
  bool ok() const { return code == DecodeErrc::kOk; }
};

}  // namespace feedrate::decode
