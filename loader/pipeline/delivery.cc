#include "loader/pipeline/delivery.h"

#include <optional>

namespace feedrate {
namespace {

// The consumer re-checks what it waits on this often, so a wait is charged to the right cause
// even when the cause changes without a notification.
constexpr auto kStallSlice = std::chrono::milliseconds(2);

}  // namespace

void Delivery::entered(std::int64_t batch) {
  if (last_return_ == Clock::time_point{}) return;
  const auto now = telemetry_.clock().now();
  telemetry_.consumer_step(io::nanoseconds_between(last_return_, now));
  trace_.span("consumer", last_return_, now, batch);
}

void Delivery::returned() {
  last_return_ = telemetry_.clock().now();
}

detail::Slot* Delivery::take(const std::function<void()>& while_waiting) {
  const std::size_t in_flight = ring_.in_flight();
  telemetry_.in_flight(in_flight);
  trace_.counter("batches in flight", telemetry_.clock().now(),
                 static_cast<std::int64_t>(in_flight));
  return wait(while_waiting, [&](std::optional<detail::Stall>* stall) -> Attempt {
    return ring_.take_front(kStallSlice, stall);
  });
}

detail::Slot* Delivery::peek(std::size_t k, const std::function<void()>& while_waiting) {
  bool blocked = false;
  return wait(while_waiting, [&](std::optional<detail::Stall>* stall) -> Attempt {
    detail::Slot* slot = ring_.peek(k, kStallSlice, stall, &blocked);
    if (blocked) return std::nullopt;
    return slot;
  });
}

detail::Slot* Delivery::wait(const std::function<void()>& while_waiting,
                             const std::function<Attempt(std::optional<detail::Stall>*)>& attempt) {
  const auto wait_start = telemetry_.clock().now();
  auto charged_until = wait_start;
  for (;;) {
    std::optional<detail::Stall> stall;
    const Attempt attempted = attempt(&stall);
    const auto now = telemetry_.clock().now();
    if (stall) telemetry_.stalled(*stall, io::nanoseconds_between(charged_until, now));
    charged_until = now;
    if (!attempted) return nullptr;
    detail::Slot* slot = *attempted;
    if (slot != nullptr) {
      trace_.span("wait", wait_start, now, static_cast<std::int64_t>(slot->number));
      return slot;
    }
    if (while_waiting) while_waiting();
  }
}

}  // namespace feedrate
