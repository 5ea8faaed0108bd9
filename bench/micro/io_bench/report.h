// feedrate-io-bench's report: the machine it ran on (the heading) and the measurements, as a
// table with each run's figures and details, or as one JSON object.
// Thread-safety: reentrant.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/micro/io_bench/measurements.h"

namespace feedrate::io_bench {

struct Environment {
  std::string cpu, memory, kernel, file, file_system, device, fio, runs;
};

// The machine and the file of `setup` (`origin`: how prepare_file() found it); fio and runs are
// left for the caller.
Environment environment(const Setup& setup, const std::string& origin);

// `resident`: the least fraction of the file in the page cache before a buffered measurement.
void print_text(const Environment& env, const std::vector<Measurement>& measurements,
                double resident);
nlohmann::json to_json(const Environment& env, const std::vector<Measurement>& measurements,
                       double resident);

}  // namespace feedrate::io_bench
