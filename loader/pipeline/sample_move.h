// Moving a decoded sample between positions of batch slots (internal to loader/): its image
// (Slot::sample_bytes), label, index, key, member fields and detection targets, so that a slot
// delivers only good samples, in order (BatchAssembler) and, under on_bad="skip", a batch takes
// the next samples of the epoch in place of the skipped ones (BatchFiller).
//
// Thread-safety: the caller owns the slots it passes (no other thread touches them).
#pragma once

#include <cstddef>

#include "loader/pipeline/slot.h"

namespace feedrate {

// Moves sample `from` of `slot` to position `to` (which it overwrites). Its fields and targets
// stay where they lie in the slot's buffers; only where it is recorded moves.
void move_sample(detail::Slot& slot, std::size_t from, std::size_t to);

// Copies sample `from` of `src` to position `to` of `dst` (another slot whose images have the
// same size and layout; its per-sample vectors hold position `to`). What lies in src's buffers
// (its key, member fields, boxes, labels, flags and mask planes) is appended to dst's, so dst
// owns all it delivers and src may be reused.
void copy_sample(const detail::Slot& src, std::size_t from, detail::Slot& dst, std::size_t to);

}  // namespace feedrate
