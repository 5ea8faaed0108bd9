#include "loader/pipeline/batch_assembler.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "feedrate/error.h"

namespace feedrate {

void BatchAssembler::move_sample(detail::Slot& slot, std::size_t from, std::size_t to) const {
  const std::size_t bytes = slot.sample_bytes;
  std::memmove(slot.images.data() + to * bytes, slot.images.data() + from * bytes, bytes);
  slot.labels[to] = slot.labels[from];
  slot.indices[to] = slot.indices[from];
  // The fields stay where they were read; their spans follow the sample.
  slot.encoded_offset[to] = slot.encoded_offset[from];
  slot.encoded_size[to] = slot.encoded_size[from];
  if (!slot.key_at.empty()) slot.key_at[to] = slot.key_at[from];
  if (!slot.targets.empty()) slot.targets[to] = slot.targets[from];  // its boxes stay in place
  if (!slot.spans.empty()) {
    const std::size_t spans = slot.member_fields + 1;
    std::copy_n(slot.spans.begin() + static_cast<std::ptrdiff_t>(from * spans), spans,
                slot.spans.begin() + static_cast<std::ptrdiff_t>(to * spans));
  }
}

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
  return kept > 0;
}

}  // namespace feedrate
