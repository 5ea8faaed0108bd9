// NVTX ranges around pipeline stages, so Nsight Systems shows feedrate's stages by the same names
// as its telemetry ("read", "decode", "copy", "wait"). Free when no profiler is attached, and
// nothing at all in a build without CUDA. Thread-safety: a range belongs to its thread.
#pragma once

namespace feedrate::gpu {

class TraceRange {
 public:
  explicit TraceRange(const char* name);
  ~TraceRange();
  TraceRange(const TraceRange&) = delete;
  TraceRange& operator=(const TraceRange&) = delete;
};

}  // namespace feedrate::gpu
