// What a run is set up with, as its report states it (Report::run, include/feedrate/report.h),
// described once from its owners (internal to loader/): the resolved options, the dataset, the
// host this process may use, the read stage and the device. The pipeline wires the stages;
// this says what it wired.
// Thread-safety: pure function.
#pragma once

#include <cstddef>
#include <string>

#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "feedrate/report.h"
#include "loader/host/system_info.h"
#include "loader/pipeline/batch_reader.h"

namespace feedrate {

struct RunParts {
  const LoaderOptions& options;  // resolved, prefetch_batches within the memory budget
  const Dataset& dataset;
  std::size_t sample_bytes = 0;  // staging bytes of one decoded sample
  CpuInfo cpu;
  MemoryInfo memory;
  const BatchReader& reader;
  std::string device;  // "host", "cuda:0", ...
};

RunSetting describe_run(const RunParts& parts);

}  // namespace feedrate
