// What packing (`feedrate pack`) would save a run, measured on the dataset's own images: a few
// JPEGs spread over the index are transcoded in memory with decode's packer (lossless, restart
// markers and index, as `feedrate pack` writes them) and decoded on the train path with the
// run's transform, original and packed alternately with the same crops, on the caller's thread
// and timed in its CPU time (so other load on the machine does not count). The ratio of the two
// times (include/feedrate/run_costs.h's PackedDecodeCost) is what
// loader/diagnosis/throughput_model.h's packed_costs() applies to a run's measured decode CPU.
//
// It skips, saying why, when packing cannot help: the eval transform (its centre crop decodes
// most of the image), data that are not JPEGs, too few JPEGs the packer takes, samples that
// carry fields (a pack keeps images and classes only), detection datasets (whole decodes, and
// annotations a pack does not keep). When most sampled
// JPEGs are packed already, it says so instead of measuring.
//
// A front-end header: `feedrate bench`, `feedrate tune` and Python's report(probe_packing=True) run
// it. Thread-safety: runs on the caller's thread; reads the dataset's samples as
// loader/dataset/dataset_reader.h does; reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "decode/transform.h"
#include "feedrate/dataset.h"
#include "feedrate/report.h"
#include "feedrate/run_costs.h"

namespace feedrate {

struct TranscodeProbeOptions {
  std::size_t samples = 32;  // JPEGs taken, evenly spaced over the index
  int rounds = 2;            // timed decodes of each image, each way
};

PackedDecodeCost probe_packed_decode(const Dataset& dataset, const TransformSpec& spec,
                                     const TranscodeProbeOptions& options = {});

// One line for people: "32 of its JPEGs packed in memory: ...", "packed already: ...",
// "not measured: ..."; empty when nothing was recorded.
std::string describe(const PackedDecodeCost& cost);

// Records the probe's figures in report.costs.packed and, when the verdict is cpu and packing
// decodes faster, appends the verdict's packing advice (its projection with the decode CPU scaled
// as packed_costs() does). `feedrate bench` and Python's report(probe_packing=True) both add it
// this way.
void add_packing(Report& report, const PackedDecodeCost& packed);

}  // namespace feedrate
