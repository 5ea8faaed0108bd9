// Batch assembly (internal to loader/): applies the bad-input policy to a batch whose samples
// are all decoded (or failed).
//
//   error  the first failed sample ends the epoch: its message (naming the file) becomes the
//          slot's failure, with the count of other failures in the batch;
//   skip   failed samples are listed in Slot::skipped, and the samples after them move down
//          (images, Slot::sample_bytes each, labels, indices, where their fields and keys lie),
//          so the batch holds only good samples, in order.
//
// Thread-safety: assemble() may run on any thread, for distinct slots at once.
#pragma once

#include <cstddef>

#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "loader/pipeline/slot.h"

namespace feedrate {

class BatchAssembler {
 public:
  BatchAssembler(const Dataset& dataset, BadInputPolicy policy)
      : dataset_(dataset), policy_(policy) {}

  // Returns false when the batch has nothing to deliver: every sample was skipped, or the
  // batch failed (Slot::failure is set).
  bool assemble(detail::Slot& slot) const;

 private:
  const Dataset& dataset_;
  const BadInputPolicy policy_;
};

}  // namespace feedrate
