#include "loader/pipeline/slot_ring.h"

#include <algorithm>
#include <string>
#include <utility>

#include "feedrate/error.h"
#include "gpu/trace.h"

namespace feedrate {
namespace {

using detail::Stall;
using State = detail::Slot::State;

// How often acquire() asks again whether a copy has finished reading a staging buffer. The
// copy of a batch takes milliseconds, so this costs nothing and adds little delay.
constexpr auto kReclaimPoll = std::chrono::microseconds(200);

}  // namespace

SlotRing::SlotRing(std::unique_ptr<gpu::Transfer> transfer, std::size_t slots,
                   std::size_t batch_size, std::size_t sample_bytes, OutputLayout layout, int size,
                   gpu::Device device)
    : transfer_(std::move(transfer)) {
  for (std::size_t i = 0; i < slots; ++i) {
    auto slot = std::make_unique<Slot>();
    slot->id = i;
    slot->images = transfer_->allocate_staging(batch_size * sample_bytes);
    slot->sample_bytes = sample_bytes;
    slot->layout = layout;
    slot->size = slot->height = slot->width = size;
    slot->device = device;
    free_.push_back(slot.get());
    slots_.push_back(std::move(slot));
  }
}

void SlotRing::reclaim() {
  std::erase_if(returning_, [&](Slot* slot) {
    if (!transfer_->staging_idle(slot->id)) return false;
    slot->state = State::kFree;
    free_.push_back(slot);
    return true;
  });
}

detail::Slot* SlotRing::acquire(const std::atomic<bool>& cancel,
                                const std::function<bool()>& meanwhile) {
  std::unique_lock lock(mutex_);
  Stall delayed_by = Stall::kIo;
  bool busy = static_cast<bool>(meanwhile);
  for (;;) {
    if (cancel) {
      acquire_waiting_ = Stall::kIo;
      return nullptr;
    }
    if (free_.empty()) reclaim();
    if (!free_.empty()) break;
    // Every slot is in flight, held or still being copied out of.
    acquire_waiting_ = returning_.empty() ? Stall::kRam : Stall::kH2d;
    if (poked_) {
      poked_ = false;
      busy = static_cast<bool>(meanwhile);
    }
    if (busy) {
      lock.unlock();
      busy = meanwhile();
      lock.lock();
    } else if (returning_.empty()) {
      changed_.wait(lock);
    } else {
      changed_.wait_for(lock, kReclaimPoll);
    }
    delayed_by = acquire_waiting_;
  }
  acquire_waiting_ = Stall::kIo;
  Slot* slot = free_.back();
  free_.pop_back();
  slot->state = State::kReading;
  slot->delayed_by = delayed_by;
  slot->failure = nullptr;
  in_flight_.push_back(slot);
  return slot;
}

void SlotRing::advance(Slot& slot, Slot::State state) {
  // Notify under the mutex: once the slot leaves a task's hands, stop_all() may return and
  // the ring may be destroyed, so nothing may touch it after the lock is released.
  std::lock_guard lock(mutex_);
  slot.state = state;
  changed_.notify_all();
}

void SlotRing::fail(std::exception_ptr failure) {
  std::lock_guard lock(mutex_);
  if (!failure_) failure_ = std::move(failure);
  changed_.notify_all();
}

Stall SlotRing::stall_of(std::size_t k) const {
  if (in_flight_.size() <= k) return acquire_waiting_.load();
  const Slot& slot = *in_flight_[k];
  switch (slot.state) {
    case State::kDecoding:
      return Stall::kCpu;
    case State::kCopying:
      return Stall::kH2d;
    default:
      return slot.delayed_by;  // reading: kIo, unless its start waited for a slot or a copy
  }
}

detail::Slot* SlotRing::wait_for(std::size_t k, std::chrono::microseconds slice,
                                 std::optional<Stall>* waited_on, bool* blocked,
                                 std::unique_lock<std::mutex>& lock) {
  const auto ready = [&] {
    if (release_failure_ || failure_) return true;
    if (in_flight_.size() <= k) return false;
    const State state = in_flight_[k]->state;
    return state == State::kReady || state == State::kRead;
  };
  waited_on->reset();
  if (!ready()) {
    *waited_on = stall_of(k);
    // No slot can come: the consumer holds every one that is not in flight before it.
    if (in_flight_.size() <= k && free_.empty() && returning_.empty()) {
      if (blocked == nullptr) {
        throw Error("the consumer holds all " + std::to_string(slots_.size()) +
                    " batch slots (prefetch_batches): destroy a Batch before asking for the "
                    "next one, or raise prefetch_batches");
      }
      *blocked = true;
      return nullptr;
    }
    changed_.wait_for(lock, slice, ready);
  }
  if (release_failure_) std::rethrow_exception(std::exchange(release_failure_, nullptr));
  if (failure_) std::rethrow_exception(failure_);
  return ready() ? in_flight_[k] : nullptr;
}

detail::Slot* SlotRing::take_front(std::chrono::microseconds slice,
                                   std::optional<Stall>* waited_on) {
  std::unique_lock lock(mutex_);
  Slot* slot = wait_for(0, slice, waited_on, nullptr, lock);
  if (slot == nullptr) return nullptr;
  in_flight_.pop_front();
  slot->state = State::kHeld;
  return slot;
}

detail::Slot* SlotRing::peek(std::size_t k, std::chrono::microseconds slice,
                             std::optional<Stall>* waited_on, bool* blocked) {
  std::unique_lock lock(mutex_);
  *blocked = false;
  return wait_for(k, slice, waited_on, blocked, lock);
}

std::size_t SlotRing::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_.size();
}

void SlotRing::wake() {
  // Under the mutex: acquire() checks its flag and starts waiting atomically with respect to it.
  std::lock_guard lock(mutex_);
  changed_.notify_all();
}

void SlotRing::poke() {
  std::lock_guard lock(mutex_);
  poked_ = true;
  changed_.notify_all();
}

bool SlotRing::failed() const {
  std::lock_guard lock(mutex_);
  return failure_ != nullptr;
}

void SlotRing::stop_all() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] {
    return std::none_of(in_flight_.begin(), in_flight_.end(), [](const Slot* s) {
      return s->state == State::kDecoding || s->state == State::kCopying;
    });
  });
  for (Slot* slot : in_flight_) {
    slot->state = State::kReturning;  // a copy may have been submitted
    returning_.push_back(slot);
  }
  in_flight_.clear();
  failure_ = nullptr;
  changed_.notify_all();
}

void SlotRing::release(Slot* slot) noexcept {
  std::exception_ptr failure;
  try {
    transfer_->release(slot->id);  // records an event on the consumer's stream: never blocks
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    if (failure) release_failure_ = failure;  // raised by the next take_front()
    slot->state = State::kReturning;
    returning_.push_back(slot);
  }
  changed_.notify_all();
}

void* SlotRing::device_images(const Slot* slot) const {
  return transfer_->output(slot->id, slot->images, nullptr).images;
}

std::int32_t* SlotRing::device_labels(const Slot* slot) const {
  if (!slot->device.is_cuda()) return const_cast<std::int32_t*>(slot->labels.data());
  return transfer_->output(slot->id, slot->images, nullptr).labels;
}

void SlotRing::wait(const Slot* slot, void* cuda_stream) const {
  gpu::TraceRange range("wait");
  transfer_->wait(slot->id, cuda_stream);
}

}  // namespace feedrate
