// Samples lent by reads that cannot have a slot yet (internal to loader/). Under
// on_bad="skip" a batch fills the places its skips left with the next good samples of the
// stream, which the following reads hold (batch_filler.h). When such a read has no slot yet
// (the consumer holds every one that is not in flight before it: prefetch_batches=2 while the
// previous batch is held, or holes that need a third read), its next samples are read alone by
// the I/O thread (loan_reads.h), decoded on the consumer's thread into a small slot of their own
// and lent to the batch. The read, when the consumer reaches it, begins after the samples it
// lent, so the batches are those the ring would have made, sample for sample, and a loan reads
// no more samples than the batch has places left (they are read and decoded again with their
// read: a few per skip). The read counts the skips among them when it is delivered; those of a
// read the epoch ends before are counted then (unreached_skips).
//
// Not for two-phase decodes (a mosaic's partners are its read's samples): their batches stay
// short then. A sample whose read fails once and not the other time (a transient error) is
// delivered once, or twice if it was lent; none is lost.
//
// Thread-safety: the consumer's thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <vector>

#include "loader/pipeline/batch_filler.h"
#include "loader/pipeline/epoch_plan.h"
#include "loader/pipeline/slot.h"

namespace feedrate {

class StreamLoans {
 public:
  // Reads a set-up loan slot (the I/O thread's: LoanReads::read), calling the function it is
  // given while it waits; false when it cannot.
  using Read = std::function<bool(detail::Slot&, const std::function<void()>&)>;
  // Decodes every sample of a read slot and applies the bad-input policy (good samples first).
  using Decode = std::function<void(detail::Slot&)>;

  // Loans hold images of `sample_bytes` in `layout`, as the ring's slots do.
  StreamLoans(const EpochPlan& plan, std::size_t sample_bytes, OutputLayout layout, int size,
              Read read, Decode decode);

  // A new epoch: no loans.
  void begin_epoch(std::uint64_t epoch);
  // Whether read `read` lent samples to the batch being filled (it lends the rest of them too).
  bool lending(std::size_t read) const;
  // Up to `wanted` more of read `read`'s good samples (those after what it lent), read and
  // decoded (`while_waiting` as for Read); a source with no slot when they cannot be read.
  ReadSource lend(std::size_t read, std::size_t wanted, const std::function<void()>& while_waiting);
  // The batch is filled: what it took from the last loan is counted.
  void settle();
  // The consumer reached read `read`'s own slot, decoded and assembled: it begins after the
  // samples it lent (Slot::taken), and it counts its skips itself.
  void apply(std::size_t read, detail::Slot& slot);
  // The epoch ended: the samples that loans found bad in reads it never reached (they are not
  // counted otherwise), once; the loans are forgotten.
  std::vector<SkippedSample> unreached_skips();

 private:
  struct Loan {
    std::size_t read = 0;
    std::vector<std::uint32_t> samples;  // the read's
    std::size_t examined = 0;            // of samples: read for loans, and not to be lent again
    std::vector<std::uint32_t> lent;     // good ones, in order
    std::size_t repeats_from = 0;        // samples from there repeat the epoch's start
    std::vector<SkippedSample> skipped;  // found by its loans, among samples [0, skips_seen)
    std::size_t skips_seen = 0;
  };
  // The loan the slot holds samples of: what the batch took of them is lent.
  void fold();
  Loan* find(std::size_t read);

  const EpochPlan& plan_;
  const Read read_;
  const Decode decode_;
  std::uint64_t epoch_ = 0;
  std::list<Loan> loans_;
  detail::Slot slot_;
  Loan* current_ = nullptr;        // whose samples slot_ holds
  std::size_t current_first_ = 0;  // where they start in its samples
};

}  // namespace feedrate
