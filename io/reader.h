// Reads byte ranges of open files into caller-owned buffers, many at a time.
//
// A Reader is driven by one thread at a time (it owns an io_uring ring, which is never shared
// between threads; open() and stats() belong to that thread too); different Readers may run on
// different threads. read() takes a batch of requests, keeps up to `queue_depth` of them in
// flight, and returns when every request has either been filled completely or failed. Per-request
// failures are data (ReadRequest::error), never exceptions: one bad file must not cost the other
// samples of the batch.
//
// Request lifecycle and error strategy (both backends):
//   * a request is submitted for [offset, offset + dest.size());
//   * EINTR and EAGAIN are retried, up to a bound, then reported;
//   * a short read is resubmitted for the remainder;
//   * a read that returns 0 bytes before the range is full means the file is shorter than the
//     index said: reported as ReadErrc::kUnexpectedEof (io/read_error.h) with bytes_read set;
//   * any other errno is reported as is.
// Everything submitted is reaped before read() returns, so buffers may be reused right after.
// Tests drive these paths for real through ReaderOptions::fault_hook, which rewrites what a read
// operation returned before the reader acts on it (the way LevelDB's Env doubles inject faults).
//
// Descriptors opened with O_DIRECT (File::open(..., true), or Reader::open with direct_io) are
// read in aligned pieces through reader-owned bounce buffers and copied into `dest`, so callers
// give ordinary ranges and buffers either way (see io/direct_io.h). A throttle (ThrottleSpec)
// makes the reader behave like a slower disk class: no read is reported complete before the
// throttle allows it (see io/throttle.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <system_error>

#include "io/clock.h"
#include "io/file.h"
#include "io/read_error.h"
#include "io/throttle.h"

namespace feedrate::io {

struct ReadRequest {
  int fd = -1;
  std::uint64_t offset = 0;
  std::span<std::byte> dest;  // exactly the bytes to read
  // Filled in by read():
  std::size_t bytes_read = 0;
  std::error_code error;
};

// Clears the results (bytes_read, error) of every request: how each read() begins.
void clear_results(std::span<ReadRequest> requests);

// One read operation a backend performed: a pread(), or one io_uring completion.
struct ReadOperation {
  int fd = -1;
  std::uint64_t offset = 0;     // in the file
  std::span<std::byte> buffer;  // what the kernel was asked to fill: dest, or a bounce buffer
};

// A test double's seam into both backends' system calls (see ReaderOptions::fault_hook). Given an
// operation and what it returned (the bytes read, or a negative errno), returns what the reader
// acts on instead: -EINTR or -EAGAIN to take the retry path, a count between 0 and the real one
// for a short read or an early end of file (the buffer's bytes past it are then not used), or
// `result` unchanged. Called on the reading thread, once per operation, before the throttle's
// delay and the statistics.
using ReadFaultHook =
    std::function<std::int64_t(const ReadOperation& operation, std::int64_t result)>;

enum class Backend { kIoUring, kPread };
const char* backend_name(Backend backend);

struct ReaderOptions {
  unsigned queue_depth = 64;  // reads in flight at most; validated by the caller (1..4096)
  bool force_pread = false;   // skip the io_uring probe (tests, and users whose kernel misbehaves)
  ThrottleSpec throttle;      // emulated disk class; unlimited by default
  // Times the reads and their throttle; outlives the reader. Tests pass a fake clock.
  Clock* clock = &Clock::real();
  // Reader::open asks for O_DIRECT, so that reads measure the disk rather than the page cache.
  // (Descriptors opened elsewhere are read the way they were opened.)
  bool direct_io = false;
  // io_uring: register the O_DIRECT bounce buffers as fixed buffers (the kernel then skips
  // mapping them on every read). Falls back to plain reads, said in ReadStats, when the kernel
  // or RLIMIT_MEMLOCK refuses. Buffered reads go straight into `dest`, never through these.
  bool register_buffers = true;
  // Fault injection for tests; empty (the results of the system calls are used as they are)
  // everywhere else.
  ReadFaultHook fault_hook;
};

struct ReadStats {
  std::uint64_t bytes = 0;       // delivered into requests' buffers
  std::uint64_t operations = 0;  // completed submissions, counting resubmissions
  std::uint64_t retries = 0;     // EINTR / EAGAIN / short-read resubmissions
  std::uint64_t failed = 0;      // requests that ended with an error
  // Per operation, from submission to reported completion (throttle delay included), from a
  // log-bucket histogram (about 6% resolution) over the reader's life.
  double latency_p50_us = 0;
  double latency_p99_us = 0;
  // Reads in flight: averaged over the time spent in read() calls, and the most at once.
  double average_in_flight = 0;
  unsigned peak_in_flight = 0;
  // What reads the data: "io_uring", "io_uring+O_DIRECT", "io_uring+fixed-buffers+O_DIRECT",
  // "pread", "pread+O_DIRECT".
  std::string backend_description;
  ThrottleSpec throttle;  // the emulated disk class applied, all zero when none
  // Whether O_DIRECT bounce buffers are registered with io_uring, and if not, why, when
  // direct_io and register_buffers asked for them.
  bool fixed_buffers = false;
  std::string fixed_buffers_note;
  // Files read buffered although direct_io asked for O_DIRECT, because their file system
  // refused it (at open or at the first read), and the latest such notice.
  std::uint64_t direct_io_fallbacks = 0;
  std::string direct_io_fallback_reason;
};

class Reader {
 public:
  virtual ~Reader() = default;
  virtual void read(std::span<ReadRequest> requests) = 0;
  virtual Backend backend() const = 0;
  const ReadStats& stats() const { return stats_; }
  // stats().backend_description.
  std::string describe_backend() const { return stats_.backend_description; }

  // Opens `path` for this reader's requests: with O_DIRECT when options.direct_io, falling back
  // to a buffered descriptor (counted in stats) where the file system refuses O_DIRECT.
  File open(const std::filesystem::path& path, std::error_code& error);

  // Probes io_uring and falls back to pread when the ring cannot be set up (containers often
  // forbid io_uring_setup). `fallback_reason` receives why, empty when io_uring is in use.
  // Throws std::invalid_argument on a negative, infinite or NaN throttle limit.
  static std::unique_ptr<Reader> create(const ReaderOptions& options, std::string* fallback_reason);

 protected:
  explicit Reader(const ReaderOptions& options);
  const ReaderOptions& options() const { return options_; }
  ReadStats& mutable_stats() { return stats_; }

 private:
  const ReaderOptions options_;
  ReadStats stats_;
};

// Attempts per request before EINTR/EAGAIN is reported as a failure.
inline constexpr int kMaxTransientRetries = 64;

}  // namespace feedrate::io
