#include "io/reader.h"

#include "io/pread_reader.h"
#include "io/uring_reader.h"

namespace feedrate::io {

const char* backend_name(Backend backend) {
  return backend == Backend::kIoUring ? "io_uring" : "pread";
}

std::unique_ptr<Reader> Reader::create(const ReaderOptions& options, std::string* fallback_reason) {
  if (fallback_reason != nullptr) fallback_reason->clear();
  if (options.force_pread) {
    if (fallback_reason != nullptr) *fallback_reason = "pread forced by option";
    return std::make_unique<PreadReader>();
  }
  std::error_code error;
  if (auto uring = UringReader::create(options.queue_depth, error)) return uring;
  if (fallback_reason != nullptr) {
    *fallback_reason = "io_uring_queue_init failed: " + error.message();
  }
  return std::make_unique<PreadReader>();
}

}  // namespace feedrate::io
