// Full batches under on_bad="skip" (internal to loader/): a batch takes the next samples of the
// epoch in place of those it skipped, so every batch but an epoch's partial last one holds
// batch_size samples (ranks that all-gather their batches stay in step) whatever was skipped.
//
// The epoch is a stream of reads (slots of batch_size samples, in the deal's order), each read
// assembled on its own (BatchAssembler: its good samples first, in order). A batch is made in
// the slot of the first read not used up, of which `taken` good samples went to earlier
// batches: its remaining samples keep their places, and the places left (those taken, and those
// of its skipped samples) are filled, in order, with the next good samples of the stream: its
// own beyond the batch's size (an epoch's last batch), then those of the following reads. So a
// batch is a pure function of the reads' good samples and where the reads begin, whatever the
// number of workers, and a resumed epoch whose reads begin where the saved run's did (the
// loader state's stream position) makes the same batches.
//
// A following read that cannot have a slot yet lends its next samples instead
// (stream_loans.h): the same samples, so the same batch.
//
// Thread-safety: fill() runs on the consumer's thread, which holds the slot and reads the
// following ones (ready: no other thread touches them).
#pragma once

#include <cstddef>
#include <functional>

#include "loader/pipeline/slot.h"

namespace feedrate {

// Where the k-th read after the batch's own (k = 0, 1, ...) gives its next good samples from:
// the read itself, decoded and assembled, whose `taken` counts its good samples used; or a loan
// (stream_loans.h): a slot holding the read's good samples from the `lent_before`-th on, of which
// its `taken` are used, and which may not reach the read's end. `slot` nullptr: there is none
// (the epoch's reads are used up, or none can be had: the batch is then short).
struct ReadSource {
  detail::Slot* slot = nullptr;
  bool loan = false;
  std::size_t lent_before = 0;
  bool reaches_end = true;
};

// The k-th read's source; `wanted`: the places the batch has left to fill.
using NextRead = std::function<ReadSource(std::size_t k, std::size_t wanted)>;

// Where the stream stands after a batch: the next batch begins with the read `read` places
// after the one just delivered (0: the next one), of which `taken` good samples are used.
struct StreamPosition {
  std::size_t read = 0;
  std::size_t taken = 0;
};

struct FillResult {
  bool moved = false;  // the slot's images changed (a copy to the device must be made again)
  StreamPosition next;
};

// Makes `slot` the batch of the stream's next `size` good samples (fewer only when the
// stream ends first), as above.
FillResult fill_batch(detail::Slot& slot, std::size_t size, const NextRead& next);

}  // namespace feedrate
