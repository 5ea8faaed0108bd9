// The copy stage (internal to loader/): takes a batch whose last sample is decoded, assembles
// it (the bad-input policy, loader/pipeline/batch_assembler.h) and submits it to the device
// (gpu::Transfer::submit: cudaMemcpyAsync and the normalize kernel on the copier's stream, a
// no-op on the host), so the copy overlaps the consumer's previous step.
//
// It runs on the thread that finished the batch's last decode, a worker, never the consumer's
// (except at num_workers 0, where the consumer decodes too). It never throws: a failure (a bad
// sample under the `error` policy, a device error) is stored in Slot::failure and raised when
// the consumer reaches the batch.
//
// Thread-safety: copy() may run on several threads at once, for distinct slots.
#pragma once

#include "feedrate/trace.h"
#include "gpu/transfer.h"
#include "loader/pipeline/batch_assembler.h"
#include "loader/pipeline/slot.h"
#include "loader/pipeline/telemetry.h"

namespace feedrate {

class Copier {
 public:
  Copier(gpu::Transfer& transfer, const BatchAssembler& assembler, Telemetry& telemetry,
         TraceRecorder& trace)
      : transfer_(transfer), assembler_(assembler), telemetry_(telemetry), trace_(trace) {}

  void copy(detail::Slot& slot);
  // The submit alone, for a batch whose images changed after copy() (batch_filler.h); a
  // failure goes to Slot::failure.
  void submit(detail::Slot& slot);

 private:
  gpu::Transfer& transfer_;
  const BatchAssembler& assembler_;
  Telemetry& telemetry_;
  TraceRecorder& trace_;
};

}  // namespace feedrate
