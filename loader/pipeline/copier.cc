#include "loader/pipeline/copier.h"

#include <exception>

#include "feedrate/system_info.h"
#include "gpu/trace.h"

namespace feedrate {

void Copier::copy(detail::Slot& slot) {
  const auto number = static_cast<std::int64_t>(slot.number);
  const std::uint64_t cpu_start = thread_cpu_ns();
  const auto start = telemetry_.clock().now();
  const bool deliver = assembler_.assemble(slot);
  const auto assembled = telemetry_.clock().now();
  telemetry_.assembled(io::nanoseconds_between(start, assembled));
  trace_.span("assemble", start, assembled, number);
  if (!deliver) {
    telemetry_.copy_cpu(thread_cpu_ns() - cpu_start);
    return;
  }

  gpu::TraceRange range("copy");
  try {
    transfer_.submit(slot.id, slot.images, slot.labels.data(), slot.indices.size());
  } catch (...) {
    slot.failure = std::current_exception();
    telemetry_.copy_cpu(thread_cpu_ns() - cpu_start);
    return;
  }
  telemetry_.copy_cpu(thread_cpu_ns() - cpu_start);
  const auto end = telemetry_.clock().now();
  telemetry_.copied(io::nanoseconds_between(assembled, end),
                    slot.indices.size() * slot.sample_bytes);
  trace_.span("copy", assembled, end, number);
}

}  // namespace feedrate
