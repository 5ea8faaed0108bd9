// How fast the pack cache may transcode (internal to loader/; see pack_cache.h): the one
// pacing decision, from a narrow view of the run's headroom.
//
// Transcoding takes CPU from the same cores that decode. It may use what delivery does not
// need: the CPU's capacity above the delivered rate, less a safety margin for noise
// (kPacingMargin of that capacity). Where there is no such headroom (the run is CPU-bound) it
// still takes a small share, kPacingLossBudget of the delivered rate's CPU, so that a CPU-bound
// run caches slowly and loses at most that share of its rate.
//
//   allowed transcodes/s = max(kPacingLossBudget x R, (1 - kPacingMargin) x C - R) x D / T
//
// with R the delivered images/s, C the images/s the CPU alone would sustain (the capacity
// model's cpu capacity, loader/diagnosis/capacity.h, where it is measured; else the decode threads
// over their busy time per image), D the decode time per image and T the transcode CPU per image.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

namespace feedrate {

inline constexpr double kPacingLossBudget = 0.03;
inline constexpr double kPacingMargin = 0.10;

struct Headroom {
  double delivered_images_per_s = 0;     // R, over a recent window
  double cpu_images_per_s = 0;           // C, the decode CPU's capacity over that window
  double decode_cpu_s_per_image = 0;     // D
  double transcode_cpu_s_per_image = 0;  // T, as measured by the cache writer
};

// Transcodes per second allowed; 0 when a figure is missing (nothing measured yet).
double allowed_transcodes_per_s(const Headroom& headroom);

// A run's cumulative figures as the telemetry counts them, read at two moments to give the
// headroom of the window between them.
struct PacingCounters {
  double wall_s = 0;
  std::uint64_t delivered = 0;  // images
  double decode_busy_s = 0;     // summed over the decode threads
  std::uint64_t decoded = 0;    // samples
  double cores = 1;             // decode threads that can run at once: min(num_workers, CPUs)
  // The capacity model's cpu capacity for the run so far (images/s); 0 when not measured.
  double cpu_capacity_images_per_s = 0;
};

// R and D over the window from `before` to `after`, C from `after`'s capacity model (else over
// the window as cores / D); zeros where the window saw no delivery or decode.
Headroom headroom_between(const PacingCounters& before, const PacingCounters& after,
                          double transcode_cpu_s_per_image);

}  // namespace feedrate
