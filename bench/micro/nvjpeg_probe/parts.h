// One part of the nvJPEG probe, in the process that runs it (main.cc starts each part as a child
// process, isolation.h). A part creates the backend's handle and finds what it refuses, then
// measures one of (probe.h says how):
//   runs:BATCH:THREADS   a batched backend's timed run, BATCH images a batch on THREADS threads
//   single               nvjpegDecode, one image at a time
//   checks               the stream-ordering check without and with a host wait, and the pixels
//                        of the first `compare` images against libjpeg-turbo's
// It prints its table lines as it measures and returns its figures as JSON: the handle's status
// ("handle"), for the hardware backend its engines and cores, "images" and "refused", then "run"
// or the checks' entries. Thread-safety: one part per process.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/micro/nvjpeg_probe/nvjpeg_library.h"
#include "bench/micro/nvjpeg_probe/probe.h"

namespace feedrate::probe {

// hardware, gpu_hybrid (batched) and hybrid (one image at a time).
struct BackendName {
  const char* name;
  nvjpegBackend_t backend;
  bool batched;
};
inline constexpr BackendName kBackends[] = {{"hardware", NVJPEG_BACKEND_HARDWARE, true},
                                            {"gpu_hybrid", NVJPEG_BACKEND_GPU_HYBRID, true},
                                            {"hybrid", NVJPEG_BACKEND_HYBRID, false}};

// Throws std::invalid_argument for an unknown backend or part.
nlohmann::json run_part_here(const NvJpeg& api, const std::string& backend, const std::string& part,
                             const std::vector<Jpeg>& jpegs, std::size_t compare);

// A run's figures as JSON, and its table line.
nlohmann::json run_json(const RunFigures& r);
void print_run(const std::string& backend, const RunFigures& r);

}  // namespace feedrate::probe
