#include "io/pread_reader.h"

#include <unistd.h>

#include <cerrno>

namespace feedrate::io {

void PreadReader::read(std::span<ReadRequest> requests) {
  for (ReadRequest& request : requests) read_one(request);
}

void PreadReader::read_one(ReadRequest& request) {
  request.bytes_read = 0;
  request.error.clear();
  int transient = 0;
  while (request.bytes_read < request.dest.size()) {
    const std::size_t want = request.dest.size() - request.bytes_read;
    const ssize_t got = ::pread(request.fd, request.dest.data() + request.bytes_read, want,
                                static_cast<off_t>(request.offset + request.bytes_read));
    ++stats_.operations;
    if (got < 0) {
      if ((errno == EINTR || errno == EAGAIN) && ++transient < kMaxTransientRetries) {
        ++stats_.retries;
        continue;
      }
      request.error = std::error_code(errno, std::generic_category());
      break;
    }
    if (got == 0) {
      request.error = std::make_error_code(std::errc::io_error);
      break;
    }
    if (static_cast<std::size_t>(got) < want) ++stats_.retries;
    request.bytes_read += static_cast<std::size_t>(got);
    stats_.bytes += static_cast<std::uint64_t>(got);
  }
  if (request.error) ++stats_.failed;
}

}  // namespace feedrate::io
