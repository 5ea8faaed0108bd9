// feedrate-decode-bench's measurement 3: `feedrate bench DIR --transform train --workers C
// --json` against the full-decode ceiling, C tjbench processes at once on each image (tjbench's
// images/s per core times the cores, measured under the same load as the run it is compared
// with), taking turns over args.repeats.
// Thread-safety: reentrant; the programs run one measurement at a time.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bench/micro/decode_bench/images.h"
#include "bench/micro/decode_bench/settings.h"
#include "bench/micro/decode_bench/timing.h"

namespace feedrate::decode_bench {

// `feedrate`: the command to run; `dir`: the dataset the images come from.
Row end_to_end(const std::filesystem::path& dir, const std::vector<Image>& images,
               const std::string& tjbench, const std::string& feedrate, int workers,
               const Args& args);

}  // namespace feedrate::decode_bench
