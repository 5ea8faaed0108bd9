// The io_uring backend: batched submission with at most `queue_depth` reads in flight.
//
// Each read in flight holds a slot: its bookkeeping, and for an O_DIRECT descriptor its bounce
// buffer (registered with the ring as fixed buffers when allowed). Under a throttle, a read the
// kernel has finished is held in its slot until the throttle's time for it, so the queue stays
// full the way a slower disk keeps it.
//
// Thread-safety: the ring belongs to the thread that calls read(); one thread at a time.
#pragma once

#include <liburing.h>

#include <vector>

#include "io/direct_io.h"
#include "io/read_meter.h"
#include "io/reader.h"

namespace feedrate::io {

class UringReader final : public Reader {
 public:
  // Returns nullptr and sets `error` when the ring cannot be created. Throws
  // std::invalid_argument on an invalid throttle.
  static std::unique_ptr<UringReader> create(const ReaderOptions& options, std::error_code& error);
  ~UringReader() override;
  UringReader(const UringReader&) = delete;
  UringReader& operator=(const UringReader&) = delete;

  void read(std::span<ReadRequest> requests) override;
  Backend backend() const override { return Backend::kIoUring; }

 private:
  // A read in flight, by slot (the slot number is its submission's user data).
  struct Op {
    std::size_t request = 0;
    std::uint64_t offset = 0;  // in the file
    std::size_t length = 0;
    bool direct = false;  // into the slot's bounce buffer
    ReadMeter::Op timing;
    int result = 0;  // once the kernel has completed it
  };

  explicit UringReader(const ReaderOptions& options);
  // Grows the bounce buffers for this batch and registers them again if they moved.
  void prepare_bounce(std::size_t bytes, std::size_t alignment);
  void register_bounce();
  void submit(std::span<ReadRequest> requests, std::size_t index);
  // Waits for a completion, or, when reads are held by the throttle, until the first is due.
  // Returns a negative errno when the ring itself fails.
  int wait();
  // Moves the kernel's completions into their slots, and finishes every read that is due.
  void reap(std::span<ReadRequest> requests);
  // ReaderOptions::fault_hook's verdict on the kernel's result for `slot`.
  int apply_fault_hook(std::span<ReadRequest> requests, unsigned slot) const;
  void finish(std::span<ReadRequest> requests, unsigned slot);
  // The ring failed: fails every unfinished request and takes back every slot.
  void abandon(std::span<ReadRequest> requests, int error);

  io_uring ring_{};
  bool ring_ready_ = false;
  const unsigned queue_depth_;
  unsigned in_flight_ = 0;  // slots in use: with the kernel, or completed and held
  std::vector<Op> ops_;     // per slot
  std::vector<unsigned> free_slots_;
  std::vector<unsigned> held_;         // completed, not yet due: a min-heap on due time
  std::vector<std::size_t> resubmit_;  // requests to submit again (short read, EINTR, EAGAIN)
  std::vector<int> transient_;         // per-request EINTR/EAGAIN count in this read()
  ReadMeter meter_;
  DirectReads direct_;
  BounceBuffers bounce_;
  bool fixed_buffers_ = false;  // bounce_ is registered with the ring
};

}  // namespace feedrate::io
