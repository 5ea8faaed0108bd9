#include "loader/pipeline/batch_filler.h"

#include <algorithm>

#include "loader/pipeline/sample_move.h"

namespace feedrate {
namespace {

using detail::Slot;

// Sizes the slot's per-sample records for `n` positions.
void resize_samples(Slot& slot, std::size_t n) {
  slot.labels.resize(n);
  slot.indices.resize(n);
  slot.encoded_offset.resize(std::max(slot.encoded_offset.size(), n));
  slot.encoded_size.resize(std::max(slot.encoded_size.size(), n));
  if (slot.has_keys) slot.key_at.resize(n);
  if (slot.has_targets) slot.targets.resize(n);
  if (slot.member_fields > 0) {
    slot.spans.resize(n * (slot.member_fields + 1));
    slot.fields_moved.resize(n);
  }
}

// The stream after the slot's own samples: the following reads' good samples, in order.
class Following {
 public:
  explicit Following(const NextRead& next) : next_(next) {}

  // The source holding the next sample, its position there its `taken`; nullptr at the
  // stream's end. `wanted`: the places left to fill.
  detail::Slot* peek(std::size_t wanted) {
    while (!ended_) {
      if (current_.slot == nullptr) {
        current_ = next_(k_, wanted);
        if (current_.slot == nullptr) {
          ended_ = true;
          break;
        }
      }
      if (current_.slot->taken < current_.slot->indices.size()) return current_.slot;
      used_ = used_of(current_);
      if (current_.reaches_end) {
        used_ = 0;
        ++k_;
      }
      current_ = {};  // a loan used up before the read's end: the read lends more
    }
    return nullptr;
  }

  // Where the next batch begins.
  StreamPosition position() const {
    if (current_.slot == nullptr) return {k_, used_};
    const std::size_t used = used_of(current_);
    if (current_.reaches_end && current_.slot->taken >= current_.slot->indices.size()) {
      return {k_ + 1, 0};
    }
    return {k_, used};
  }

 private:
  // The good samples of the source's read used so far.
  static std::size_t used_of(const ReadSource& source) {
    return source.lent_before + source.slot->taken;
  }

  const NextRead& next_;
  ReadSource current_;
  std::size_t k_ = 0;
  std::size_t used_ = 0;  // of read k_, while no source of it is current
  bool ended_ = false;
};

}  // namespace

FillResult fill_batch(Slot& slot, std::size_t size, const NextRead& next) {
  const std::size_t good = slot.indices.size();
  const std::size_t taken = std::min(slot.taken, good);
  FillResult result;
  if (taken == 0 && good == size) return result;  // nothing skipped nor taken: as read

  // Positions [taken, min(good, size)) keep their samples; the others below `size` are holes.
  const std::size_t kept_end = std::min(good, size);
  std::size_t own_beyond = std::max(size, taken);  // own samples past the batch's size
  resize_samples(slot, std::max(good, size));
  Following following(next);
  std::vector<bool> filled(size, false);
  for (std::size_t i = taken; i < kept_end; ++i) filled[i] = true;
  std::size_t left = size - (kept_end - std::min(taken, kept_end));  // places to fill
  for (std::size_t hole = 0; hole < size; ++hole) {
    if (filled[hole]) continue;
    if (own_beyond < good) {
      move_sample(slot, own_beyond++, hole);
    } else if (Slot* source = following.peek(left); source != nullptr) {
      copy_sample(*source, source->taken++, slot, hole);
    } else {
      break;  // the stream ended: the batch is short
    }
    filled[hole] = true;
    --left;
    result.moved = true;
  }
  // Short: the filled places move down, in order.
  std::size_t delivered = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if (!filled[i]) continue;
    if (i != delivered) {
      move_sample(slot, i, delivered);
      result.moved = true;
    }
    ++delivered;
  }
  resize_samples(slot, delivered);
  result.next = following.position();
  return result;
}

}  // namespace feedrate
