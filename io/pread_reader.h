// The portable backend: one pread() after another on the calling thread. Used when io_uring is
// unavailable or forced off. Under a throttle it sleeps until each read may complete.
// Thread-safety: one thread at a time, like every Reader.
#pragma once

#include "io/direct_io.h"
#include "io/read_meter.h"
#include "io/reader.h"

namespace feedrate::io {

class PreadReader final : public Reader {
 public:
  explicit PreadReader(const ReaderOptions& options);
  void read(std::span<ReadRequest> requests) override;
  Backend backend() const override { return Backend::kPread; }

 private:
  struct Outcome {
    int error = 0;            // errno of a failed pread
    std::size_t added = 0;    // bytes that reached dest
    bool short_read = false;  // pread returned fewer bytes than asked
  };

  void read_one(ReadRequest& request, std::size_t index);
  // One pread of the request's next bytes: through the bounce buffer for an O_DIRECT
  // descriptor, straight into dest otherwise; its result passes through options().fault_hook
  // when one is set. Returns once the throttle allows.
  Outcome read_piece(ReadRequest& request, std::size_t index);

  ReadMeter meter_;
  DirectReads direct_;
  BounceBuffers bounce_;  // one slot: one read at a time
};

}  // namespace feedrate::io
