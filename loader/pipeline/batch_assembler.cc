#include "loader/pipeline/batch_assembler.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "feedrate/error.h"
#include "loader/pipeline/sample_move.h"

namespace feedrate {

bool BatchAssembler::assemble(detail::Slot& slot) const {
  const auto failed = [](const std::string& error) { return !error.empty(); };
  const auto failures =
      static_cast<std::size_t>(std::count_if(slot.errors.begin(), slot.errors.end(), failed));
  if (failures == 0) return slot.count > 0;
  if (policy_ == BadInputPolicy::kError) {
    std::string message = *std::find_if(slot.errors.begin(), slot.errors.end(), failed);
    if (failures > 1) message += " (and " + std::to_string(failures - 1) + " more in this batch)";
    slot.failure = std::make_exception_ptr(Error(message));
    return false;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (failed(slot.errors[i])) {
      // The error names the sample first ("where: problem"); the record keeps each part once.
      std::string where = dataset_.describe(slot.indices[i]);
      std::string reason = slot.errors[i];
      if (reason.starts_with(where + ": ")) reason.erase(0, where.size() + 2);
      slot.skipped.push_back({slot.indices[i], std::move(where), std::move(reason)});
      continue;
    }
    if (kept != i) move_sample(slot, i, kept);
    ++kept;
  }
  slot.labels.resize(kept);
  slot.indices.resize(kept);
  slot.key_at.resize(std::min(slot.key_at.size(), kept));
  slot.targets.resize(std::min(slot.targets.size(), kept));
  slot.spans.resize(std::min(slot.spans.size(), kept * (slot.member_fields + 1)));
  slot.fields_moved.resize(std::min(slot.fields_moved.size(), kept));
  return kept > 0;
}

}  // namespace feedrate
