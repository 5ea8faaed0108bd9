#include "loader/pipeline/extra_reads.h"

#include <algorithm>

namespace feedrate {

void ExtraReads::begin() {
  std::lock_guard lock(mutex_);
  wanted_ = 0;
  closed_ = false;
}

void ExtraReads::want(std::size_t reads) {
  {
    std::lock_guard lock(mutex_);
    wanted_ = std::max(wanted_, reads);
  }
  changed_.notify_all();
}

void ExtraReads::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

void ExtraReads::wake() {
  {
    std::lock_guard lock(mutex_);  // wait() checks the cancel flag under it before it waits
  }
  changed_.notify_all();
}

void ExtraReads::poke() {
  {
    std::lock_guard lock(mutex_);
    poked_ = true;
  }
  changed_.notify_all();
}

bool ExtraReads::wait(std::size_t extra, const std::atomic<bool>& cancel,
                      const std::function<void()>& meanwhile) {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return wanted_ > extra || closed_ || cancel || poked_; });
    if (!poked_) return wanted_ > extra && !cancel;
    poked_ = false;
    if (meanwhile) {
      lock.unlock();
      meanwhile();
      lock.lock();
    }
  }
}

}  // namespace feedrate
