// The loader's fixed ring of batch slots and the one lock that orders their lives (internal to
// loader/). Shared with every Batch, so a Batch may outlive its Loader.
//
// Who calls what:
//   I/O thread   acquire(): the next free slot, appended to the in-flight queue (batch order),
//                doing the caller's other work (block look-ahead) while every slot is taken;
//   any stage    advance(): a slot's next state (loader/pipeline/slot.h); fail(): a pipeline error;
//   consumer     take_front(): the oldest batch in flight once it is deliverable; poke():
//                work posted for the I/O thread, which may be waiting in acquire();
//   any thread   release() (through the last Batch or DLPack holder): never blocks.
// A released slot is not free while a copy may still read its staging buffer: acquire() asks
// the copier (gpu::Transfer::staging_idle, which does not block) and polls while it waits, so
// no thread of the loader ever blocks on the device.
//
// Thread-safety: every method may be called from any thread; one mutex guards the states, the
// lists and the failure; one condition variable wakes waiters on every change (a few per batch).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "gpu/transfer.h"
#include "loader/pipeline/slot.h"

namespace feedrate {

class SlotRing final : public detail::SlotOwner {
 public:
  using Slot = detail::Slot;

  // Makes `slots` slots whose staging buffers hold `batch_size` samples of `sample_bytes`.
  SlotRing(std::unique_ptr<gpu::Transfer> transfer, std::size_t slots, std::size_t batch_size,
           std::size_t sample_bytes, OutputLayout layout, int size, gpu::Device device);

  gpu::Transfer& transfer() { return *transfer_; }
  std::size_t capacity() const { return slots_.size(); }

  // I/O thread: the next slot to fill, now kReading and last in flight, with delayed_by saying
  // what its start waited for (kIo: nothing). nullptr once `cancel` is set. While every slot
  // is in flight or held, `meanwhile` (when given) runs without the lock instead of a wait, as
  // long as it returns true (it did some work: a look-ahead read, a loan's read); once it
  // returns false the call waits as without it, until poke() has it run again.
  Slot* acquire(const std::atomic<bool>& cancel, const std::function<bool()>& meanwhile = {});
  // What acquire() waits for right now: kRam (every slot in flight or held), kH2d (a released
  // slot's staging is still being copied) or kIo (it is not waiting).
  detail::Stall acquire_waiting() const { return acquire_waiting_.load(); }

  // Moves `slot` to `state` and wakes the waiters. The last thing a decode task does: once a
  // slot leaves kDecoding / kCopying, stop_all() may return and the ring may be destroyed.
  void advance(Slot& slot, Slot::State state);
  // Records the pipeline's failure (the first one wins); take_front() raises it.
  void fail(std::exception_ptr failure);

  // Consumer: waits up to `slice` for the oldest batch in flight to be kReady or kRead, and
  // hands it over (kHeld). Returns nullptr when the slice passes first. When the call waited,
  // `waited_on` receives what that batch was waiting on when the wait began. Rethrows a
  // failure, and throws Error when the consumer holds every slot.
  Slot* take_front(std::chrono::microseconds slice, std::optional<detail::Stall>* waited_on);
  // Consumer: as take_front() for the k-th batch in flight (0: the oldest), which it returns
  // without handing it over: it stays in flight, and the consumer may read it and change its
  // `taken` (batch_filler.h), since no other thread touches a kReady slot. Instead of throwing
  // when no slot can come (the consumer holds every one that is not in flight before it), sets
  // *blocked and returns nullptr.
  Slot* peek(std::size_t k, std::chrono::microseconds slice,
             std::optional<detail::Stall>* waited_on, bool* blocked);
  std::size_t in_flight() const;
  // Whether fail() was called since the last stop_all().
  bool failed() const;

  // Wakes acquire() after the caller set its cancel flag.
  void wake();
  // Has acquire() run its `meanwhile` again: work was posted for the I/O thread (loan_reads.h).
  void poke();
  // Cancels the batches in flight: waits for their decode and copy tasks to finish (the caller
  // has set their cancel flag and joined the I/O thread), returns their slots, clears the
  // failure.
  void stop_all();

  // detail::SlotOwner
  void release(Slot* slot) noexcept override;
  void* device_images(const Slot* slot) const override;
  std::int32_t* device_labels(const Slot* slot) const override;
  void wait(const Slot* slot, void* cuda_stream) const override;

 private:
  // Moves returning slots whose staging no copy reads any more to the free list (lock held).
  void reclaim();
  // What the k-th batch in flight is waiting on (lock held).
  detail::Stall stall_of(std::size_t k) const;
  // take_front() and peek(): waits up to `slice` for the k-th batch in flight to be ready
  // (lock held); `blocked` null: throws when no slot can come.
  Slot* wait_for(std::size_t k, std::chrono::microseconds slice,
                 std::optional<detail::Stall>* waited_on, bool* blocked,
                 std::unique_lock<std::mutex>& lock);

  std::unique_ptr<gpu::Transfer> transfer_;
  std::vector<std::unique_ptr<Slot>> slots_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Slot*> free_;
  std::vector<Slot*> returning_;
  std::deque<Slot*> in_flight_;  // batch order
  bool poked_ = false;
  std::exception_ptr failure_;
  std::exception_ptr release_failure_;  // a copier error while a Batch was released
  std::atomic<detail::Stall> acquire_waiting_{detail::Stall::kIo};
};

}  // namespace feedrate
