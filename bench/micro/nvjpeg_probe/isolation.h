// The probe's parts in child processes (bench/micro/nvjpeg_probe). On an H200, nvJPEG's hardware
// backend hung in a batched run and a later GPU_HYBRID run ended in a segfault; neither can be
// stopped from inside the process, and either lost every figure after it. So main.cc runs each
// part (one timed configuration, or a backend's checks) as a program of its own under a time
// limit: a part that hangs is killed and recorded as hung, one that crashes as crashed, and the
// parts after it still run, each in a fresh process (and CUDA context).
// Thread-safety: reentrant; each call waits for its own child.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace feedrate::probe {

struct PartOutcome {
  nlohmann::json figures;  // the JSON the part wrote; null when it wrote none
  // Empty when the part exited 0 with its JSON; else why not: "hung: killed after 20 s",
  // "crashed: Segmentation fault", "exit status 3", "wrote no JSON".
  std::string failure;
  bool hung = false;
  double seconds = 0;
};

// Runs `program` with `args` and then "--part-json FILE" (a temporary file, removed after), its
// output on this process's, for at most `limit_s` seconds (then SIGKILL, and a killed part that
// has not exited 10 s later is left behind), and reads FILE.
// Throws std::runtime_error when the child cannot be started.
PartOutcome run_part(const std::string& program, std::vector<std::string> args, double limit_s);

// This program's own path (/proc/self/exe), to run a part of it.
std::string self_path();

}  // namespace feedrate::probe
