// The projection shared by the capacity model and the verdict's advice (a run's Report) and
// `feedrate plan`: how many images/s decode threads on a number of cores, or a disk, deliver for
// a run's measured per-image costs, and how those costs (include/feedrate/run_costs.h's
// ImageCosts) change under another shuffle mode or with the dataset packed (`feedrate pack`).
//   cpu   min(threads / decode CPU per image, cores / loader CPU per image) x cpu_share: each
//         decode thread runs on a core of its own at most, every loader thread (reads, copies)
//         shares the cores with them, and other processes take what cpu_share says;
//   disk  min(MB/s / bytes_per_image, IOPS / reads_per_image, queue_depth / latency /
//         reads_per_image).
// A front-end header (`feedrate plan`): the formulas above are the contract, over the run's
// measured costs (include/feedrate/run_costs.h) and a disk's limits (io/throttle_spec.h).
// Thread-safety: pure functions.
#pragma once

#include "feedrate/options.h"
#include "feedrate/run_costs.h"
#include "io/throttle_spec.h"

namespace feedrate {

// Images/s `threads` decode threads deliver on `cores` cores (infinity when decoding costs
// nothing measurable).
double cpu_images_per_s(const ImageCosts& costs, double threads, double cores);
// One decode thread per core.
double cpu_images_per_s(const ImageCosts& costs, double cores);

// Images/s a disk delivers for these costs with `queue_depth` reads in flight at most
// (infinity when not limited).
double disk_images_per_s(const ImageCosts& costs, unsigned queue_depth,
                         const io::ThrottleSpec& disk);

// How a dataset's samples lie in storage, for projecting its reads under another order.
struct ReadLayout {
  double sample_bytes = 0;  // one sample's encoded bytes, on average; 0: as measured
  // What one read covers when consecutive samples are read as a whole block (tar_chunk_bytes on
  // tar shards); 0 when every sample is read on its own whatever the order (image folders, file
  // lists, --tar-chunk-kb 0).
  double block_bytes = 0;
};

// The per-image costs of a run that ran in order `ran`, projected for order `mode`:
//   full          one read of sample_bytes per image (in a seeded permutation, neighbours in
//                 storage are seldom neighbours in a batch);
//   blocks, none  the bytes read as whole blocks: bytes_per_image / block_bytes reads per image,
//                 never more than measured (and as measured when block_bytes is 0).
// The order the run ran in keeps its measured costs. Decode CPU does not depend on the order.
ImageCosts costs_under_shuffle(const ImageCosts& measured, ShuffleMode ran, ShuffleMode mode,
                               const ReadLayout& layout);

// The per-image costs with the dataset packed: decode CPU times `decode_ratio` (packed over
// original decode time, measured on a sample of the dataset's own images; the rest of the
// loader's CPU unchanged) and bytes read times `bytes_ratio` (packed over original bytes); reads
// per image are unchanged. Ratios <= 0 count as 1 (not measured).
ImageCosts packed_costs(const ImageCosts& measured, double decode_ratio, double bytes_ratio);

}  // namespace feedrate
