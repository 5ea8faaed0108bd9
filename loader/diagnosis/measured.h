// What the figures of one run say, computed once from its Report for every advice line the
// verdict writes (loader/diagnosis/verdict.cc, loader/diagnosis/disk_advice.cc), and the two
// shapes an advice takes: a finding (a cause alone) and a remedy (what to do, to what rate, at
// what cost). Internal to loader/diagnosis/. Thread-safety: a plain value over a Report that
// must outlive it; pure functions.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "feedrate/report.h"
#include "io/throttle.h"
#include "loader/diagnosis/throughput_model.h"

namespace feedrate {

inline constexpr double kUnlimited = std::numeric_limits<double>::infinity();

struct Measured {
  // Needs report.capacities filled in and report.wall_s > 0.
  explicit Measured(const Report& report);

  const Report& report;
  const Capacities& capacities;
  double delivered = 0;  // images/s
  ImageCosts costs;
  double read_mb_s = 0, reads_per_s = 0, bytes_per_read = 0;
  int threads = 1;        // decode threads
  int cores = 1;          // available to the loader
  io::ThrottleSpec disk;  // the emulated disk; unlimited when unknown

  double lifted(Resource resource, double capacity) const;
  double capacity(Resource resource) const { return capacities.of(resource).images_per_s; }
  bool measured(Resource resource) const { return capacities.of(resource).measured; }
};

Advice make_finding(const char* kind, std::string cause);
Advice make_remedy(const char* kind, std::string what, double projected, std::string cost,
                   std::string cause = {});
// The same, with the options `what` names as {0}, {1}, ...
Advice make_remedy(const char* kind, std::string what, std::vector<OptionSetting> settings,
                   double projected, std::string cost);

// Bytes as GB (10^9), as the advice writes them.
inline double gb(std::uint64_t bytes) {
  return static_cast<double>(bytes) / 1e9;
}

}  // namespace feedrate
