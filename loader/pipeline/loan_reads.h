// The reads the consumer asks of the I/O thread for a loan (internal to loader/): under
// on_bad="skip", the next samples of a read that cannot have a slot yet, read alone into a slot
// of the consumer's (stream_loans.h). Only the I/O thread may use the sample source, so the
// consumer posts the slot, wakes the I/O thread where it may wait (a free slot in
// SlotRing::acquire, the next extra read in ExtraReads::wait: both run serve() when poked) and
// waits; the I/O thread reads it (BatchReader::read_outside). Should the I/O thread end first (the
// epoch's reads are done), the read is refused.
//
// Thread-safety: every method may be called from any thread; one mutex guards the post.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>

#include "loader/pipeline/batch_reader.h"
#include "loader/pipeline/slot.h"

namespace feedrate {

class LoanReads {
 public:
  // An epoch's I/O thread starts: reads may be asked.
  void open();
  // The I/O thread ends: a read asked and not served, and any asked later, are refused.
  void close();

  // Consumer: has the I/O thread read `slot` (set up as BatchReader::read_outside wants it),
  // calling `wake` once posted, and waits for it, calling `while_waiting` (may be empty) every
  // few milliseconds; what it throws is rethrown once no read can touch the slot. Returns false
  // when the I/O thread ended first; `failure` receives what the read threw (a failure of the
  // source itself), else null.
  bool read(detail::Slot& slot, const std::function<void()>& wake,
            const std::function<void()>& while_waiting, std::exception_ptr& failure);
  // I/O thread: reads the slot posted, if any, with `reader`; returns whether it did.
  bool serve(BatchReader& reader);

 private:
  static constexpr std::chrono::milliseconds kSlice{2};

  std::mutex mutex_;
  std::condition_variable changed_;
  detail::Slot* posted_ = nullptr;
  bool open_ = false;
  bool serving_ = false;
  bool done_ = false;
  std::exception_ptr failure_;
};

}  // namespace feedrate
