// The io_uring backend: batched submission with at most `queue_depth` reads in flight.
// Thread-safety: the ring belongs to the thread that calls read(); one thread at a time.
#pragma once

#include <liburing.h>

#include <vector>

#include "io/reader.h"

namespace feedrate::io {

class UringReader final : public Reader {
 public:
  // Returns nullptr and sets `error` when the ring cannot be created.
  static std::unique_ptr<UringReader> create(unsigned queue_depth, std::error_code& error);
  ~UringReader() override;
  UringReader(const UringReader&) = delete;
  UringReader& operator=(const UringReader&) = delete;

  void read(std::span<ReadRequest> requests) override;
  Backend backend() const override { return Backend::kIoUring; }
  const ReadStats& stats() const override { return stats_; }

 private:
  explicit UringReader(unsigned queue_depth) : queue_depth_(queue_depth) {}
  void submit(ReadRequest& request, std::size_t index);
  void complete(std::span<ReadRequest> requests, std::size_t index, int result);

  io_uring ring_{};
  unsigned queue_depth_;
  unsigned in_flight_ = 0;
  std::vector<std::size_t> resubmit_;  // requests to submit again (short read, EINTR)
  std::vector<int> transient_;         // per-request EINTR/EAGAIN count in this read()
  ReadStats stats_;
};

}  // namespace feedrate::io
