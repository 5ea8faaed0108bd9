// The capacity model: for each resource, the images/s it alone would sustain, from a run's own
// figures (Report::run and Report::figures). The verdict (loader/diagnosis/verdict.h) names the
// resource whose capacity the delivered rate reaches; its advice, `feedrate tune` and `feedrate
// plan` project with the same formulas (loader/diagnosis/throughput_model.h).
//   io        images per second the I/O thread spent reading, and no more than the emulated
//             disk's limits (--throttle) allow for the run's bytes and reads per image, nor
//             than a remote store sustains with the requests allowed in flight (its rate
//             while at least kStoreSaturated of them were in flight (store_saturated()) or
//             when their number is unknown, else its rate scaled to them as it grew with the
//             requests in flight (store_scaling.h), else one request's rate times the
//             requests allowed);
//   cpu       the decode threads (num_workers; the consumer's thread at 0) on the cores this
//             process may use, from the CPU time per image of the decodes and of every loader
//             thread (loader/diagnosis/throughput_model.h's cpu_images_per_s());
//   ram       the batches in flight (slots) over the time a batch needs a slot when it waits on
//             nothing: its reads, its decodes (CPU time) spread over the threads, its copy, and
//             the consumer's step, for which it holds the batch (Little's law);
//   h2d       images per second the copy stage spent copying (a CUDA device only);
//   consumer  the training rate when given (--consume-rate), else images per second the
//             consumer spent outside next(), when that is at least kMeasurableStepShare of
//             the wall time (a bare benchmark loop says nothing about training).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "feedrate/report.h"
#include "io/throttle.h"
#include "loader/diagnosis/throughput_model.h"

namespace feedrate {

// The consumer's own time must be at least this share of the wall time to infer its rate.
inline constexpr double kMeasurableStepShare = 0.05;
// A store's requests in flight on average, as a share of those allowed, from which its measured
// rate is what it sustains (the allowed requests were in use).
inline constexpr double kStoreSaturated = 0.75;

// Whether the store kept at least kStoreSaturated of its allowed requests in flight on average.
// False when no limit is known (max_in_flight 0, as in a report made by hand): no share of it
// can be judged.
bool store_saturated(const StoreFigures& store);

// From this share of its allowed requests in flight on average, the read-ahead was never held
// back by the stages after it: had the decodes been slower than the store, the read-ahead's
// memory would have filled with samples waiting for them, and fewer requests would have been in
// flight.
inline constexpr double kStoreUnheld = 0.95;

// The store's requests in flight on average over those allowed (0 when no limit is known).
double store_in_flight_share(const StoreFigures& store);

Capacities capacities(const Report& report);

// Images/s the slots sustain for a slot cycle (Little's law: slots x batch / cycle).
double ram_images_per_s(const SlotCycle& cycle);

// What the run would deliver with `resource`'s capacity raised (or lowered) to `capacity`: the
// lowest of that and every other measured capacity, the ram capacity recomputed with the reads
// (io) or decodes (cpu) of the new rate.
double lifted(const Capacities& capacities, Resource resource, double capacity);

// The run's per-image costs as the projections take them: of a report, or of a run's figures
// and the images it delivered.
ImageCosts image_costs(const Report& report);
ImageCosts image_costs(const RunFigures& figures, std::uint64_t images);

// The cpu capacity's images/s for these costs on the run's decode threads and cores (the one
// formula the verdict and the pack cache's pacing both read).
double cpu_capacity_images_per_s(const RunSetting& run, const ImageCosts& costs);

// The disk the run emulated (--throttle); unlimited when none (or not a valid spec).
io::ThrottleSpec emulated_disk(const RunSetting& run);

}  // namespace feedrate
