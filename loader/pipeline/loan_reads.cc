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

bool LoanReads::read(detail::Slot& slot, const std::function<void()>& wake,
                     const std::function<void()>& while_waiting, std::exception_ptr& failure) {
  failure = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (!open_) return false;
    posted_ = &slot;
    done_ = false;
    failure_ = nullptr;
  }
  wake();
  std::unique_lock lock(mutex_);
  const auto answered = [&] { return done_ || !open_; };
  while (!changed_.wait_for(lock, kSlice, answered)) {
    if (!while_waiting) continue;
    lock.unlock();
    try {
      while_waiting();
    } catch (...) {
      // Withdrawn: once no read can write into the slot.
      lock.lock();
      changed_.wait(lock, [&] { return !serving_; });
      posted_ = nullptr;
      throw;
    }
    lock.lock();
  }
  posted_ = nullptr;
  if (!done_) return false;
  failure = std::exchange(failure_, nullptr);
  return true;
}

bool LoanReads::serve(BatchReader& reader) {
  detail::Slot* slot = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (posted_ == nullptr || done_ || serving_) return false;
    slot = posted_;
    serving_ = true;
  }
  std::exception_ptr failure;
  try {
    reader.read_outside(*slot);
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    serving_ = false;
    done_ = true;
    failure_ = std::move(failure);
  }
  changed_.notify_all();
  return true;
}

}  // namespace feedrate
