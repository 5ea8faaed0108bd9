// feedrate-io-bench's measurements: the jobs and their contenders (plan()), the repeats that
// run them, taking turns in reverse order every other repeat so that drift on a shared machine
// favours none (measure()), and the table's rows: a contender's median against a reference's,
// with the target ratio where there is one (rows()).
// Thread-safety: reentrant; the runs happen on the caller's thread.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/micro/io_bench/job.h"

namespace feedrate::io_bench {

struct Contender {
  std::string name;
  std::function<Run()> run;
  std::vector<Run> runs;  // one per repeat
};

struct Measurement {
  Job job;
  std::vector<Contender> contenders;
};

// The median of the contender's successful runs; empty when none succeeded.
std::optional<double> median(const Contender& contender);
// The detail of the contender's latest run, which says why when it failed.
std::string detail(const Contender& contender);

// The three measurements (O_DIRECT random, O_DIRECT sequential, buffered warm random) with
// their contenders, each run reading `setup`, which must outlive them.
std::vector<Measurement> plan(const Setup& setup);

// Runs every measurement `repeats` times; returns the least resident fraction of the file
// seen before a buffered measurement.
double measure(const Setup& setup, int repeats, std::vector<Measurement>& measurements);

struct Row {
  std::string measurement, subject, reference;
  std::optional<double> subject_mb_per_s, reference_mb_per_s, ratio;
  double target = 0;
  std::optional<bool> met;  // empty without a target or a ratio
};

// One row per comparison of the table, from the measurements plan() made and measure() ran.
std::vector<Row> rows(const std::vector<Measurement>& measurements);

}  // namespace feedrate::io_bench
