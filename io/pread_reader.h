// The portable backend: one pread() after another on the calling thread. Used when io_uring is
// unavailable or forced off. Thread-safety: one thread at a time, like every Reader.
#pragma once

#include "io/reader.h"

namespace feedrate::io {

class PreadReader final : public Reader {
 public:
  void read(std::span<ReadRequest> requests) override;
  Backend backend() const override { return Backend::kPread; }
  const ReadStats& stats() const override { return stats_; }

 private:
  void read_one(ReadRequest& request);
  ReadStats stats_;
};

}  // namespace feedrate::io
