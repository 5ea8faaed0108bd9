// The consumer's side of Pipeline (pipeline.h): next() hands the batches over in order; under
// on_bad="skip" it fills each batch's places from the following reads, or from their loans when
// they have no slot yet (batch_filler.h, stream_loans.h), and counts at the epoch's end the skips
// of reads still in flight. The rest of Pipeline (construction, the epoch's lifecycle, the I/O
// thread and the decode tasks) is in pipeline.cc.
#include <algorithm>

#include "loader/pipeline/batch_filler.h"
#include "loader/pipeline/pipeline.h"

namespace feedrate {

using detail::Slot;

std::optional<Batch> Pipeline::next(const std::function<void()>& while_waiting) {
  delivery_->entered(static_cast<std::int64_t>(next_number_) - 1);
  std::optional<Batch> batch;
  try {
    batch = next_batch(while_waiting);
  } catch (...) {
    delivery_->returned();  // the time until the next call is the consumer's again
    throw;
  }
  delivery_->returned();
  return batch;
}

std::optional<Batch> Pipeline::next_batch(const std::function<void()>& while_waiting) {
  if (!started_) start_epoch(plan_.restored_epoch().value_or(0));
  while (!epoch_over_ && next_number_ < plan_.batches() && read_coming(reads_taken_)) {
    Slot* slot = nullptr;
    try {
      slot = delivery_->take(while_waiting);
    } catch (...) {
      // A pipeline failure ends the epoch. Other exceptions (while_waiting's, a device error at
      // a release, the consumer holding every slot) leave it as it was.
      if (!ring_->failed()) throw;
      end_with(std::current_exception());
    }
    Batch batch(ring_, slot);  // returns the slot to the ring on every path below
    reach(reads_taken_++, *slot);
    if (slot->failure) end_with(slot->failure);
    if (fills_) {
      forget_repeated_skips(*slot);
      if (slot->taken >= slot->indices.size()) {
        // Every good sample went to earlier batches: only its skips are left to count.
        slot->indices.clear();
        telemetry_->delivered(*slot);
        continue;
      }
      const std::size_t first = next_number_ * options_.batch_size;
      const std::size_t size = std::min(options_.batch_size, plan_.taken_samples() - first);
      const FillResult filled = fill_batch(*slot, size, [&](std::size_t k, std::size_t wanted) {
        return following_read(k, wanted, while_waiting);
      });
      if (loans_) loans_->settle();
      stream_read_ = reads_taken_ + filled.next.read;
      stream_taken_ = filled.next.taken;
      if (filled.moved && slot->device.is_cuda()) copier_->submit(*slot);
      if (slot->failure) end_with(slot->failure);
    }
    slot->number = plan_.first_batch() + next_number_;
    ++next_number_;
    telemetry_->delivered(*slot);
    if (slot->indices.empty()) continue;  // every sample skipped: nothing to hand over
    return batch;
  }
  end_epoch(while_waiting);
  return std::nullopt;
}

bool Pipeline::read_coming(std::size_t read) {
  if (read < plan_.batches()) return true;
  if (!fills_ || read >= plan_.reads()) return false;
  extra_reads_.want(read - plan_.batches() + 1);
  return true;
}

void Pipeline::end_with(std::exception_ptr failure) {
  epoch_over_ = true;
  stop();
  std::rethrow_exception(failure);
}

ReadSource Pipeline::following_read(std::size_t k, std::size_t wanted,
                                    const std::function<void()>& while_waiting) {
  const std::size_t read = reads_taken_ + k;
  if (!read_coming(read)) return {};
  if (!loans_ || !loans_->lending(read)) {
    if (Slot* slot = delivery_->peek(k, while_waiting); slot != nullptr) {
      reach(read, *slot);
      // A read that failed is not a source: the failure ends the epoch when its turn comes.
      return {.slot = slot->failure ? nullptr : slot};
    }
    if (!loans_) return {};
  }
  return loans_->lend(read, wanted, while_waiting);
}

void Pipeline::reach(std::size_t read, Slot& slot) {
  decode_on_consumer(slot);
  if (loans_ && !slot.failure) loans_->apply(read, slot);
}

void Pipeline::decode_loan(Slot& slot) {
  // Decoding on the consumer's thread keeps the consumer waiting: a CPU stall.
  const auto start = clock_.now();
  for (std::size_t i = 0; i < slot.count; ++i) decoder_->decode(slot, i);
  assembler_->assemble(slot);
  telemetry_->stalled(detail::Stall::kCpu, io::nanoseconds_between(start, clock_.now()));
}

void Pipeline::decode_on_consumer(Slot& slot) {
  if (options_.num_workers != 0 || slot.decoded) return;
  slot.decoded = true;
  // Decoding on the consumer's thread keeps the consumer waiting: a CPU stall.
  const auto start = clock_.now();
  for (std::size_t i = 0; i < slot.count; ++i) decode_sample(slot, i);
  if (decoder_->two_phase()) {
    decoder_->begin_placement(slot);
    slot.phase = 1;
    for (std::size_t i = 0; i < slot.count; ++i) decode_sample(slot, i);
  }
  telemetry_->stalled(detail::Stall::kCpu, io::nanoseconds_between(start, clock_.now()));
  copier_->copy(slot);
}

void Pipeline::forget_repeated_skips(Slot& slot) const {
  if (!slot.extra || slot.repeats_from >= slot.count || slot.skipped.empty()) return;
  // The read's samples from repeats_from on repeat the epoch's start: their skips were counted.
  std::vector<std::uint32_t> repeated;
  plan_.read_samples(slot.number - plan_.first_batch(), repeated);
  repeated.erase(repeated.begin(),
                 repeated.begin() + static_cast<std::ptrdiff_t>(slot.repeats_from));
  std::sort(repeated.begin(), repeated.end());
  std::erase_if(slot.skipped, [&](const SkippedSample& skipped) {
    return std::binary_search(repeated.begin(), repeated.end(), skipped.index);
  });
}

void Pipeline::end_epoch(const std::function<void()>& while_waiting) {
  if (fills_) {
    extra_reads_.close();
    // Reads that lent samples to the last batches are still in flight: count their skips.
    while (ring_->in_flight() > 0) {
      Slot* slot = delivery_->take(while_waiting);
      const Batch rest(ring_, slot);
      decode_on_consumer(*slot);
      if (loans_) loans_->apply(slot->number - plan_.first_batch(), *slot);
      forget_repeated_skips(*slot);
      slot->indices.clear();
      telemetry_->delivered(*slot);
    }
    // Reads that lent samples and never came: the skips their loans found.
    if (loans_) telemetry_->skipped(loans_->unreached_skips());
  }
  epoch_over_ = true;
  if (fills_) {
    // The deal is used up, though skips may have left it fewer batches (without pad_shards):
    // a state taken now says so.
    next_number_ = plan_.batches();
    stream_read_ = next_number_;
    stream_taken_ = 0;
    stop();  // an extra read asked for last may not have begun
  } else if (io_thread_.joinable()) {
    io_thread_.join();
  }
}

}  // namespace feedrate
