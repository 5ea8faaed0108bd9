#include "io/reader.h"

#include "io/pread_reader.h"
#include "io/uring_reader.h"

namespace feedrate::io {

void clear_results(std::span<ReadRequest> requests) {
  for (ReadRequest& request : requests) {
    request.bytes_read = 0;
    request.error.clear();
  }
}

const char* backend_name(Backend backend) {
  return backend == Backend::kIoUring ? "io_uring" : "pread";
}

Reader::Reader(const ReaderOptions& options) : options_(options) {
  stats_.throttle = options.throttle;
}

File Reader::open(const std::filesystem::path& path, std::error_code& error) {
  File file = File::open(path, error, options_.direct_io);
  if (!error && options_.direct_io && !file.direct()) {
    ++stats_.direct_io_fallbacks;
    stats_.direct_io_fallback_reason =
        path.string() + ": the file system refused O_DIRECT at open (EINVAL); reading it buffered";
  }
  return file;
}

std::unique_ptr<Reader> Reader::create(const ReaderOptions& options, std::string* fallback_reason) {
  if (fallback_reason != nullptr) fallback_reason->clear();
  if (options.force_pread) {
    if (fallback_reason != nullptr) *fallback_reason = "pread forced by option";
    return std::make_unique<PreadReader>(options);
  }
  std::error_code error;
  if (auto uring = UringReader::create(options, error)) return uring;
  if (fallback_reason != nullptr) {
    *fallback_reason = "io_uring_queue_init failed: " + error.message();
  }
  return std::make_unique<PreadReader>(options);
}

}  // namespace feedrate::io
