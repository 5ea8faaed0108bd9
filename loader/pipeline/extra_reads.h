// The consumer's asks for the extra reads of an epoch (internal to loader/): under
// on_bad="skip" the reads beyond the epoch's batches that make up for skipped samples
// (EpochPlan::reads, batch_filler.h) are made only when the consumer needs them. The consumer
// asks for them (want) and says when the epoch needs no more (close); the I/O thread waits for
// each one (wait), serving meanwhile what else the consumer posts for it (poke).
//
// Thread-safety: every method may be called from any thread; one mutex guards the count.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>

namespace feedrate {

class ExtraReads {
 public:
  // A new epoch: none asked for, not closed.
  void begin();
  // Asks for the first `reads` extra reads (fewer asked before: more now).
  void want(std::size_t reads);
  // No more are wanted this epoch.
  void close();
  // Wakes wait() after the caller set its cancel flag.
  void wake();
  // Has wait() run its `meanwhile`: work was posted for the I/O thread (loan_reads.h).
  void poke();
  // I/O thread: waits until extra read `extra` (0-based) is wanted (true), or the epoch is
  // closed without it, or `cancel` is set (false), running `meanwhile` (may be empty) without the
  // lock after each poke().
  bool wait(std::size_t extra, const std::atomic<bool>& cancel,
            const std::function<void()>& meanwhile = {});

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t wanted_ = 0;
  bool closed_ = false;
  bool poked_ = false;
};

}  // namespace feedrate
