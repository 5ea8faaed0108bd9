#include "loader/pipeline/loan_reads.h"

#include <utility>

namespace feedrate {

void LoanReads::open() {
  std::lock_guard lock(mutex_);
  open_ = true;
}

void LoanReads::close() {
  {
    std::lock_guard lock(mutex_);
    open_ = false;
  }
  changed_.notify_all();
}

bool LoanReads::read(detail::Slot& slot, SlotRing& ring) {
  {
    std::lock_guard lock(mutex_);
    if (!open_) return false;
    posted_ = &slot;
    done_ = false;
    failure_ = nullptr;
  }
  ring.poke();
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return done_ || !open_; });
  posted_ = nullptr;
  if (!done_) return false;
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  return true;
}

bool LoanReads::serve(BatchReader& reader) {
  detail::Slot* slot = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (posted_ == nullptr || done_) return false;
    slot = posted_;
  }
  std::exception_ptr failure;
  try {
    reader.read_outside(*slot);
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    done_ = true;
    failure_ = std::move(failure);
  }
  changed_.notify_all();
  return true;
}

}  // namespace feedrate
