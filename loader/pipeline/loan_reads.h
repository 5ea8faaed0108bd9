// The reads the consumer asks of the I/O thread for a loan (internal to loader/): under
// on_bad="skip", the next samples of a read that cannot have a slot yet, read alone into a slot
// of the consumer's (stream_loans.h). Only the I/O thread may use the sample source, so the
// consumer posts the slot and waits; the I/O thread reads it (BatchReader::read_outside) while it
// waits for a free slot (SlotRing::acquire's `meanwhile`), which is where it is whenever a read
// cannot have one.
//
// Thread-safety: every method may be called from any thread; one mutex guards the post.
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>

#include "loader/pipeline/batch_reader.h"
#include "loader/pipeline/slot.h"
#include "loader/pipeline/slot_ring.h"

namespace feedrate {

class LoanReads {
 public:
  // An epoch's I/O thread starts: reads may be asked.
  void open();
  // The I/O thread ends: a read asked and not served, and any asked later, are refused.
  void close();

  // Consumer: has the I/O thread read `slot` (set up as BatchReader::read_outside wants it) and
  // waits for it, waking the thread through `ring`. Returns false when the thread ended first;
  // rethrows what the read threw.
  bool read(detail::Slot& slot, SlotRing& ring);
  // I/O thread: reads the slot posted, if any, with `reader`; returns whether it did.
  bool serve(BatchReader& reader);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  detail::Slot* posted_ = nullptr;
  bool open_ = false;
  bool done_ = false;
  std::exception_ptr failure_;
};

}  // namespace feedrate
