// One delivered batch: images, labels, the dataset indices they came from and any samples
// skipped under the `skip` policy. A Batch leases a slot of the loader's fixed ring; the slot
// returns to the ring when the Batch is destroyed, so hold at most prefetch_batches - 1 of
// them while asking for more.
//
// On a CUDA device the images and labels are in device memory: call wait(stream) before using
// them on `stream` (the stream then waits for the copy; the host never blocks), and do not use
// them after the Batch (and every DLPack tensor exported from it) is gone.
//
// Thread-safety: a Batch is read-only once delivered; it may be read from any thread and
// destroyed from any thread (also after its Loader is gone).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "feedrate/export.h"
#include "feedrate/fields.h"
#include "feedrate/options.h"
#include "feedrate/skipped.h"

struct DLManagedTensor;  // <dlpack/dlpack.h>

namespace feedrate {

namespace detail {
struct Slot;
// Owns the slots: takes them back when their last holder (a Batch or an exported DLPack tensor)
// is gone, and knows where the delivered copy lives.
class SlotOwner {
 public:
  virtual void release(Slot* slot) noexcept = 0;
  virtual void* device_images(const Slot* slot) const = 0;
  virtual std::int32_t* device_labels(const Slot* slot) const = 0;
  virtual void wait(const Slot* slot, void* cuda_stream) const = 0;

 protected:
  ~SlotOwner() = default;
};
}  // namespace detail

// One image's detection targets (LoaderOptions::annotations), moved with its pixels by the
// detection transform: views into the batch, valid while the Batch lives.
struct ImageTargets {
  std::span<const float> boxes;  // 4 a box: XYXY in the delivered image's pixels
  std::span<const std::int64_t> labels;
  std::span<const std::uint8_t> flags;  // per box: 1 crowd (COCO iscrowd), 2 difficult (VOC)
  // LoaderOptions::masks: mask_planes planes of height() x width() bytes, one a box (instance
  // masks, 0 or 1) or one label map (semantic, 255 where a transform filled); empty otherwise.
  std::span<const std::uint8_t> masks;
  std::uint32_t mask_planes = 0;
  std::int64_t image_id = 0;            // COCO's, or the position in YOLO's and VOC's order
  int orig_width = 0, orig_height = 0;  // the source image's
  // The image's own size. It fills the batch's height() x width() unless the transform's
  // sizes vary (DetectionSpec::varies): then it lies in the top-left corner and the rest is
  // black (0 in uint8; its normalized value in float layouts), as are the masks' planes
  // (0 for instance masks, 255 for a label map).
  int width = 0, height = 0;
  // A point of the source maps to (x * scale_x + pad_x, y * scale_y + pad_y) in the delivered
  // image when the transform is a letterbox or a resize (Ultralytics' ratio_pad); 1 and 0 when
  // the geometry was random.
  float scale_x = 1, scale_y = 1, pad_x = 0, pad_y = 0;
};

class FEEDRATE_API Batch {
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
  // The images' size: the transform's size x size, or, when a detection transform's sizes vary,
  // the batch's largest image rounded up to a multiple of 32 (ImageTargets::width/height hold
  // each image's own).
  int height() const;
  int width() const;
  int channels() const { return 3; }
  // Shape as the layout orders it: {N, H, W, C} or {N, C, H, W}.
  std::vector<std::int64_t> shape() const;

  // "host" or "cuda:N": where data() and label_data() point.
  std::string device() const;
  // The images in layout() and the labels, on device().
  const void* data() const;
  const std::int32_t* label_data() const;
  // Makes a CUDA stream (a cudaStream_t; nullptr is the legacy default stream) wait until this
  // batch has arrived on the device, and remembers it: the slot is not refilled until the work
  // queued on that stream before the Batch is released has run. A no-op on the host.
  void wait(void* cuda_stream) const;
  // The images and labels as DLPack tensors on device() (shape() and {N}), for
  // torch.from_dlpack and friends. Each keeps the batch's slot leased until its deleter runs.
  DLManagedTensor* images_dlpack() const;
  DLManagedTensor* labels_dlpack() const;

  // Host views; exactly one matches layout() and the device must be the host (otherwise they
  // throw feedrate::Error). labels() is always the host copy of the labels.
  std::span<const std::uint8_t> images_u8() const;
  std::span<const float> images_f32() const;
  std::span<const std::int32_t> labels() const;
  std::span<const std::uint32_t> indices() const;
  const std::vector<SkippedSample>& skipped() const;

  // The fields each sample carries (LoaderOptions::fields), in that order; labels() holds cls.
  const std::vector<FieldSpec>& fields() const;
  // Field `f` of sample `i`: the member's bytes as stored (text, json, integer, npy and bytes
  // kinds; checked by the decode stage, so text is UTF-8 and json parses) or the key (__key__).
  // A view into the batch's slot, valid while the Batch lives: no copy. Throws feedrate::Error
  // for a cls field (use labels()) or an index out of range.
  std::string_view field(std::size_t i, std::size_t f) const;
  // An integer field's value (cls2, index): field(i, f) parsed.
  std::int64_t field_integer(std::size_t i, std::size_t f) const;

  // True when the samples carry detection targets (a dataset with annotations).
  bool has_targets() const;
  // Sample `i`'s targets. Throws feedrate::Error when the batch has none or `i` is out of range.
  ImageTargets targets(std::size_t i) const;

 private:
  std::shared_ptr<detail::SlotOwner> owner_;
  detail::Slot* slot_ = nullptr;
};

}  // namespace feedrate
