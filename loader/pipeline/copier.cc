#include "loader/pipeline/copier.h"

#include <chrono>
#include <exception>

#include "gpu/trace.h"

namespace feedrate {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t nanoseconds(Clock::time_point start, Clock::time_point end) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
}

}  // namespace

void Copier::copy(detail::Slot& slot) {
  const auto number = static_cast<std::int64_t>(slot.number);
  const auto start = Clock::now();
  const bool deliver = assembler_.assemble(slot);
  const auto assembled = Clock::now();
  telemetry_.assembled(nanoseconds(start, assembled));
  trace_.span("assemble", start, assembled, number);
  if (!deliver) return;

  gpu::TraceRange range("copy");
  try {
    transfer_.submit(slot.id, slot.images, slot.labels.data(), slot.indices.size());
  } catch (...) {
    slot.failure = std::current_exception();
    return;
  }
  const auto end = Clock::now();
  telemetry_.copied(nanoseconds(assembled, end), slot.indices.size() * slot.sample_bytes);
  trace_.span("copy", assembled, end, number);
}

}  // namespace feedrate
