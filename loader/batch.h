// One delivered batch: images, labels, the dataset indices they came from and any samples
// skipped under the `skip` policy. A Batch leases a slot of the loader's fixed ring; the slot
// returns to the ring when the Batch is destroyed, so hold at most prefetch_batches - 1 of
// them while asking for more.
//
// Thread-safety: a Batch is read-only once delivered; it may be read from any thread and
// destroyed from any thread (also after its Loader is gone).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "loader/options.h"

namespace feedrate {

struct SkippedSample {
  std::uint32_t index = 0;  // dataset sample index
  std::string where;        // file, or shard:member
  std::string reason;
};

namespace detail {
struct Slot;
// Takes slots back when their Batch ends.
class SlotOwner {
 public:
  virtual void release(Slot* slot) noexcept = 0;

 protected:
  ~SlotOwner() = default;
};
}  // namespace detail

class Batch {
 public:
  Batch(std::shared_ptr<detail::SlotOwner> owner, detail::Slot* slot);
  ~Batch();
  Batch(Batch&& other) noexcept;
  Batch& operator=(Batch&& other) noexcept;
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  std::uint64_t epoch() const;
  std::size_t number() const;  // position of this batch in its epoch, from 0
  std::size_t size() const;    // images delivered (skipped samples are not counted)

  OutputLayout layout() const;
  int height() const;
  int width() const;
  int channels() const { return 3; }
  // Shape as the layout orders it: {N, H, W, C} or {N, C, H, W}.
  std::vector<std::int64_t> shape() const;

  // The images; exactly one of these matches layout() (the other throws feedrate::Error).
  std::span<const std::uint8_t> images_u8() const;
  std::span<const float> images_f32() const;
  std::span<const std::int32_t> labels() const;
  std::span<const std::uint32_t> indices() const;
  const std::vector<SkippedSample>& skipped() const;

 private:
  std::shared_ptr<detail::SlotOwner> owner_;
  detail::Slot* slot_ = nullptr;
};

}  // namespace feedrate
