// feedrate-decode-bench's settings (bench/micro/decode_bench/main.cc says what the program
// does): the command line's values, the targets each measurement is held to, and the tjbench
// options that make its decompression the same work as decode_full.
// Thread-safety: constants and a plain value.
#pragma once

#include <string>

#include "decode/restart_index.h"

namespace feedrate::decode_bench {

constexpr double kFullTarget = 0.95, kTrainTarget = 1.25, kEndToEndTarget = 0.85;
// The tjbench options that make its decompression the same work as decode_full.
constexpr const char* kTjbenchOptions = "-rgb -accuratedct -nowrite";

struct Args {
  std::string dir;
  int images = 8;
  double seconds = 0.5;
  double warmup = 0.2;
  int repeats = 3;
  std::string tjbench = "tjbench";
  std::string feedrate;
  int workers = 0;
  int end_to_end_epochs = 2;
  int restart_mcus = decode::kTargetMcusPerInterval;  // K of the packed forms
  bool no_end_to_end = false;
  bool json = false;
};

}  // namespace feedrate::decode_bench
