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

  // The read holding the next sample and its position there, or nullptr at the stream's end.
  Slot* peek() {
    while (!ended_) {
      if (current_ == nullptr) {
        current_ = next_(k_);
        if (current_ == nullptr) {
          ended_ = true;
          break;
        }
      }
      if (current_->taken < current_->indices.size()) return current_;
      current_ = nullptr;
      ++k_;
    }
    return nullptr;
  }

  // Where the next batch begins.
  StreamPosition position() {
    if (current_ != nullptr && current_->taken >= current_->indices.size()) {
      return {k_ + 1, 0};
    }
    return {k_, current_ != nullptr ? current_->taken : 0};
  }

 private:
  const NextRead& next_;
  Slot* current_ = nullptr;
  std::size_t k_ = 0;
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
  for (std::size_t hole = 0; hole < size; ++hole) {
    if (filled[hole]) continue;
    if (own_beyond < good) {
      move_sample(slot, own_beyond++, hole);
    } else if (Slot* source = following.peek(); source != nullptr) {
      copy_sample(*source, source->taken++, slot, hole);
    } else {
      break;  // the stream ended: the batch is short
    }
    filled[hole] = true;
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
