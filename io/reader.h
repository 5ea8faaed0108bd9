// Reads byte ranges of open files into caller-owned buffers, many at a time.
//
// A Reader is driven by one thread at a time (it owns an io_uring ring, which is never shared
// between threads); different Readers may run on different threads. read() takes a batch of
// requests, keeps up to `queue_depth` of them in flight, and returns when every request has
// either been filled completely or failed. Per-request failures are data (ReadRequest::error),
// never exceptions: one bad file must not cost the other samples of the batch.
//
// Request lifecycle and error strategy (both backends):
//   * a request is submitted for [offset, offset + dest.size());
//   * EINTR and EAGAIN are retried, up to a bound, then reported;
//   * a short read is resubmitted for the remainder;
//   * a read that returns 0 bytes before the range is full means the file is shorter than the
//     index said: reported as errc::io_error ("unexpected end of file") with bytes_read set;
//   * any other errno is reported as is.
// Everything submitted is reaped before read() returns, so buffers may be reused right after.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <system_error>

namespace feedrate::io {

struct ReadRequest {
  int fd = -1;
  std::uint64_t offset = 0;
  std::span<std::byte> dest;  // exactly the bytes to read
  // Filled in by read():
  std::size_t bytes_read = 0;
  std::error_code error;
};

enum class Backend { kIoUring, kPread };
const char* backend_name(Backend backend);

struct ReaderOptions {
  unsigned queue_depth = 64;  // reads in flight at most; validated by the caller (1..4096)
  bool force_pread = false;   // skip the io_uring probe (tests, and users whose kernel misbehaves)
};

struct ReadStats {
  std::uint64_t bytes = 0;
  std::uint64_t operations = 0;  // completed submissions, counting resubmissions
  std::uint64_t retries = 0;     // EINTR / EAGAIN / short-read resubmissions
  std::uint64_t failed = 0;      // requests that ended with an error
};

class Reader {
 public:
  virtual ~Reader() = default;
  virtual void read(std::span<ReadRequest> requests) = 0;
  virtual Backend backend() const = 0;
  virtual const ReadStats& stats() const = 0;

  // Probes io_uring and falls back to pread when the ring cannot be set up (containers often
  // forbid io_uring_setup). `fallback_reason` receives why, empty when io_uring is in use.
  static std::unique_ptr<Reader> create(const ReaderOptions& options, std::string* fallback_reason);
};

// Attempts per request before EINTR/EAGAIN is reported as a failure.
inline constexpr int kMaxTransientRetries = 64;

}  // namespace feedrate::io
