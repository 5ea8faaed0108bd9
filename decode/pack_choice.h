// Whether packing transcodes an image or keeps its bytes: the one decision that `feedrate pack`
// (bench/pack/pack.cc), the pack cache's writer (loader/cache/writer.cc) and the packing probe
// (loader/diagnosis/packing_probe.cc) all take. A JPEG is transcoded (decode/jpeg_pack.h)
// unless it carries a restart index already (decode/restart_index.h: it is packed); any other
// format is kept as it is. When a transcode fails, store_unchanged() (decode/jpeg_pack.h) says
// whether the bytes are then kept or the image is bad. Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <span>

namespace feedrate::decode {

enum class PackChoice {
  kTranscode,      // a JPEG without a restart index
  kPackedAlready,  // a JPEG that carries one: its bytes are kept
  kNotJpeg,        // another format (or no image): its bytes are kept
};

PackChoice pack_choice(std::span<const std::uint8_t> bytes);

}  // namespace feedrate::decode
