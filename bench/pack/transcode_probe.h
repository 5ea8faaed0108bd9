// What packing (`feedrate pack`) would save a run, measured on the dataset's own images: a few
// JPEGs spread over the index are transcoded in memory with decode's packer (lossless, restart
// markers and index, as `feedrate pack` writes them) and decoded on the train path with the
// run's transform, original and packed alternately with the same crops, on the caller's thread
// and timed in its CPU time (so other load on the machine does not count). The ratio of the two
// times is what loader/throughput_model.h's packed_costs() applies to a run's measured decode CPU.
//
// It skips, saying why, when packing cannot help: the eval transform (its centre crop decodes
// most of the image), data that are not JPEGs, too few JPEGs the packer takes. When most sampled
// JPEGs are packed already, it says so instead of measuring.
//
// Thread-safety: runs on the caller's thread; reads the dataset's files with pread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "decode/transform.h"
#include "loader/dataset.h"

namespace feedrate::bench {

struct PackedDecodeCost {
  // "measured"; "packed" (the dataset's JPEGs are packed already); "skipped" (see reason);
  // "" when the run recorded nothing (an older run, or --no-pack-probe).
  std::string state;
  std::string reason;                           // skipped: why, in a few words
  std::size_t samples = 0;                      // images decoded both ways (measured), or sampled
  double original_ms = 0, packed_ms = 0;        // CPU per image on one thread, train transform
  double original_bytes = 0, packed_bytes = 0;  // per image, mean
  double seconds = 0;                           // the probe's own wall time

  bool measured() const { return state == "measured" && original_ms > 0 && packed_ms > 0; }
  double decode_ratio() const { return measured() ? packed_ms / original_ms : 1; }
  double bytes_ratio() const {
    return measured() && original_bytes > 0 ? packed_bytes / original_bytes : 1;
  }
};

struct TranscodeProbeOptions {
  std::size_t samples = 32;  // JPEGs taken, evenly spaced over the index
  int rounds = 2;            // timed decodes of each image, each way
};

PackedDecodeCost probe_packed_decode(const Dataset& dataset, const decode::TransformSpec& spec,
                                     const TranscodeProbeOptions& options = {});

// One line for people: "32 of its JPEGs packed in memory: ...", "packed already: ...",
// "not measured: ..."; empty when nothing was recorded.
std::string describe(const PackedDecodeCost& cost);

}  // namespace feedrate::bench
