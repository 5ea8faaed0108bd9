#include "decode/pack_choice.h"

#include "decode/format.h"
#include "decode/restart_index.h"

namespace feedrate::decode {

PackChoice pack_choice(std::span<const std::uint8_t> bytes) {
  if (sniff_format(bytes) != ImageFormat::kJpeg) return PackChoice::kNotJpeg;
  RestartIndex index;
  bool found = false;
  if (read_restart_index(bytes, index, found).ok() && found) return PackChoice::kPackedAlready;
  return PackChoice::kTranscode;
}

}  // namespace feedrate::decode
