// Can this process use io_uring, and may it register fixed buffers (pinned against RLIMIT_MEMLOCK)?
// Probed by doing it: a small ring is set up and a 64 KiB buffer registered, then both undone.
// For `feedrate doctor`. Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <string>

namespace feedrate::io {

struct UringProbe {
  bool available = false;
  std::string error;  // why not, when not ("io_uring_queue_init: Operation not permitted")
  bool fixed_buffers = false;
  std::string fixed_buffers_error;
  std::uint64_t memlock_limit_bytes = 0;  // RLIMIT_MEMLOCK soft limit; UINT64_MAX: unlimited
};

UringProbe probe_io_uring();

}  // namespace feedrate::io
