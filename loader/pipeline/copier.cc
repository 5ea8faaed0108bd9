#include "loader/pipeline/copier.h"

#include <exception>

#include "gpu/trace.h"
#include "loader/host/system_info.h"

namespace feedrate {

void Copier::copy(detail::Slot& slot) {
  const auto number = static_cast<std::int64_t>(slot.number);
  // This thread's CPU time in the stage, counted however the stage ends.
  const struct CpuTime {
    Telemetry& telemetry;
    std::uint64_t start = thread_cpu_ns();
    ~CpuTime() { telemetry.copy_cpu(thread_cpu_ns() - start); }
  } cpu{telemetry_};
  const auto start = telemetry_.clock().now();
  const bool deliver = assembler_.assemble(slot);
  const auto assembled = telemetry_.clock().now();
  telemetry_.assembled(io::nanoseconds_between(start, assembled));
  trace_.span("assemble", start, assembled, number);
  if (deliver) submit(slot);
}

void Copier::submit(detail::Slot& slot) {
  gpu::TraceRange range("copy");
  const auto start = telemetry_.clock().now();
  try {
    transfer_.submit(slot.id, slot.images, slot.labels.data(), slot.indices.size(),
                     static_cast<std::size_t>(slot.height) * static_cast<std::size_t>(slot.width));
  } catch (...) {
    slot.failure = std::current_exception();
    return;
  }
  const auto end = telemetry_.clock().now();
  telemetry_.copied(io::nanoseconds_between(start, end), slot.indices.size() * slot.sample_bytes);
  trace_.span("copy", start, end, static_cast<std::int64_t>(slot.number));
}

}  // namespace feedrate
