// How feedrate-decode-bench times its contenders: a call rate over a window after a warm-up,
// two paths taking turns crop by crop, medians and the harmonic mean of per-image rates; and
// a measurement's result, a Row of the table (its contender against its reference, per repeat).
// Thread-safety: reentrant; the timed calls run on the caller's thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/micro/decode_bench/settings.h"

namespace feedrate::decode_bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Calls `step` for `warmup` seconds, then for at least `seconds`; returns calls per second.
double rate(double warmup, double seconds, const std::function<void()>& step);

double median(std::vector<double> values);
// Images/s over a set decoded once each, from per-image rates.
double harmonic(const std::vector<double>& per_image);

struct Row {
  std::string name, subject, reference;
  std::vector<double> subject_runs, reference_runs;  // images/s per repeat
  double target = 0;
  std::string note;
  double subject_median() const { return median(subject_runs); }
  double reference_median() const { return median(reference_runs); }
  double ratio() const { return subject_median() / reference_median(); }
};

// Two paths take turns crop by crop (same image, same seed), each timed on its own, so that a
// shared machine's load changes slow both alike: a warm-up of `images` calls each, then
// args.repeats runs of 2 x args.seconds per image, whose images/s go to `row`.
void take_turns(std::size_t images, const Args& args,
                const std::function<void(std::uint64_t)>& ours,
                const std::function<void(std::uint64_t)>& theirs, Row& row);

}  // namespace feedrate::decode_bench
