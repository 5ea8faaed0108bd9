// Turns a run's capacities (loader/diagnosis/capacity.h) into a verdict: the bottleneck is the
// resource whose capacity the delivered rate reaches, a runner-up within kCloseMargin is named too
// (a remote store within it of the decodes binds instead of them when it kept kStoreUnheld of its
// requests in flight: the decodes never held its read-ahead back), and the advice is data
// (include/feedrate/report.h's Advice: cause, remedy, projected images/s, cost);
// loader/diagnosis/verdict_text.h renders it into sentences. The consumer's stalls are evidence,
// not the verdict: on a disk-bound run every batch is read and then decoded, so the consumer also
// waits on batches that are decoding. Projections use loader/diagnosis/throughput_model.h, as
// `feedrate plan` does. packing_advice() turns the packing probe's measurement
// (loader/diagnosis/packing_probe.h, which `feedrate bench` and Python's report(probe_packing=True)
// run) into an advice. Internal to loader/; pure functions, so scenarios are easy to test.
// Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "feedrate/report.h"

namespace feedrate {

// Waits below this share of the wall time mean the loader keeps up: the consumer binds.
inline constexpr double kStallThreshold = 0.05;
// A second resource whose capacity lies within this share of the bottleneck's is named with it
// ("io, cpu close behind").
inline constexpr double kCloseMargin = 0.15;
// The delivered rate "reaches" the bottleneck's capacity when it is within this share of it;
// further below, the report says that something outside the model held the run back (another
// process taking the cores, most often).
inline constexpr double kReachMargin = 0.15;

// Needs report.capacities (capacities(report)) filled in.
Verdict judge(const Report& report);

// What packing the dataset (`feedrate pack`) changes per image, measured by the packing probe on
// a sample of the dataset's own JPEGs.
struct PackingGain {
  double decode_ratio = 1;  // packed over original decode CPU per image, train transform
  double bytes_ratio = 1;   // packed over original bytes
  std::size_t samples = 0;  // images measured
};

// The advice a cpu verdict gets for `gain` (the caller appends it to the verdict's advice when
// decode_ratio < 1): the cpu capacity with the run's decode CPU per image scaled as
// loader/diagnosis/throughput_model.h's packed_costs() does, what the run would then deliver, and
// what it costs (a copy of the dataset, scaled by bytes_ratio).
Advice packing_advice(const Report& report, const PackingGain& gain);

}  // namespace feedrate
