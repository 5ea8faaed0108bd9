#include "io/uring_probe.h"

#include <liburing.h>
#include <sys/resource.h>
#include <sys/uio.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace feedrate::io {

UringProbe probe_io_uring() {
  UringProbe probe;
  rlimit limit{};
  if (::getrlimit(RLIMIT_MEMLOCK, &limit) == 0) {
    probe.memlock_limit_bytes = limit.rlim_cur == RLIM_INFINITY ? UINT64_MAX : limit.rlim_cur;
  }
  io_uring ring{};
  if (const int rc = io_uring_queue_init(4, &ring, 0); rc < 0) {
    probe.error = std::string("io_uring_queue_init: ") + std::strerror(-rc);
    return probe;
  }
  probe.available = true;
  std::vector<std::byte> buffer(64 << 10);
  const iovec iov{buffer.data(), buffer.size()};
  if (const int rc = io_uring_register_buffers(&ring, &iov, 1); rc < 0) {
    probe.fixed_buffers_error = std::string("io_uring_register_buffers: ") + std::strerror(-rc);
  } else {
    probe.fixed_buffers = true;
    io_uring_unregister_buffers(&ring);
  }
  io_uring_queue_exit(&ring);
  return probe;
}

}  // namespace feedrate::io
