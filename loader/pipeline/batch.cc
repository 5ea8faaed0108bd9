#include "feedrate/batch.h"

#include <algorithm>
#include <utility>

#include "feedrate/error.h"
#include "gpu/device.h"
#include "gpu/dlpack_export.h"
#include "loader/pipeline/field_check.h"
#include "loader/pipeline/slot.h"

namespace feedrate {
namespace {

void unref(const std::shared_ptr<detail::SlotOwner>& owner, detail::Slot* slot) noexcept {
  if (slot->holders.fetch_sub(1) == 1) owner->release(slot);
}

}  // namespace

Batch::Batch(std::shared_ptr<detail::SlotOwner> owner, detail::Slot* slot)
    : owner_(std::move(owner)), slot_(slot) {
  slot_->holders = 1;
}

Batch::~Batch() {
  if (slot_ != nullptr) unref(owner_, slot_);
}

Batch::Batch(Batch&& other) noexcept
    : owner_(std::move(other.owner_)), slot_(std::exchange(other.slot_, nullptr)) {}

Batch& Batch::operator=(Batch&& other) noexcept {
  if (this != &other) {
    if (slot_ != nullptr) unref(owner_, slot_);
    owner_ = std::move(other.owner_);
    slot_ = std::exchange(other.slot_, nullptr);
  }
  return *this;
}

std::uint64_t Batch::epoch() const {
  return slot_->epoch;
}
std::size_t Batch::number() const {
  return slot_->number;
}
std::size_t Batch::size() const {
  return slot_->indices.size();
}
OutputLayout Batch::layout() const {
  return slot_->layout;
}
int Batch::height() const {
  return slot_->height;
}
int Batch::width() const {
  return slot_->width;
}

std::vector<std::int64_t> Batch::shape() const {
  const auto n = static_cast<std::int64_t>(size());
  const std::int64_t h = slot_->height, w = slot_->width;
  if (slot_->layout == OutputLayout::kUint8NHWC) return {n, h, w, 3};
  return {n, 3, h, w};
}

std::string Batch::device() const {
  return slot_->device.name();
}
const void* Batch::data() const {
  return owner_->device_images(slot_);
}
const std::int32_t* Batch::label_data() const {
  return owner_->device_labels(slot_);
}
void Batch::wait(void* cuda_stream) const {
  owner_->wait(slot_, cuda_stream);
}

DLManagedTensor* Batch::images_dlpack() const {
  const std::vector<std::int64_t> dims = shape();
  slot_->holders.fetch_add(1);
  return gpu::make_dlpack_tensor(owner_->device_images(slot_), slot_->device,
                                 detail::element_type(slot_->layout), dims,
                                 [owner = owner_, slot = slot_] { unref(owner, slot); });
}

DLManagedTensor* Batch::labels_dlpack() const {
  const std::int64_t dims[1] = {static_cast<std::int64_t>(size())};
  slot_->holders.fetch_add(1);
  return gpu::make_dlpack_tensor(owner_->device_labels(slot_), slot_->device,
                                 gpu::ElementType::kInt32, dims,
                                 [owner = owner_, slot = slot_] { unref(owner, slot); });
}

std::span<const std::uint8_t> Batch::images_u8() const {
  if (slot_->device.is_cuda()) {
    throw Error("images_u8(): this batch is on " + device() + "; use data() or images_dlpack()");
  }
  if (slot_->layout != OutputLayout::kUint8NHWC) {
    throw Error("images_u8(): this batch holds float32 NCHW images; use images_f32()");
  }
  return {reinterpret_cast<const std::uint8_t*>(slot_->images.data()),
          size() * slot_->sample_bytes};
}

std::span<const float> Batch::images_f32() const {
  if (slot_->device.is_cuda()) {
    throw Error("images_f32(): this batch is on " + device() + "; use data() or images_dlpack()");
  }
  if (slot_->layout != OutputLayout::kFloat32NCHW) {
    throw Error("images_f32(): this batch holds uint8 NHWC images; use images_u8()");
  }
  return {reinterpret_cast<const float*>(slot_->images.data()),
          size() * slot_->sample_bytes / sizeof(float)};
}

std::span<const std::int32_t> Batch::labels() const {
  return slot_->labels;
}
std::span<const std::uint32_t> Batch::indices() const {
  return slot_->indices;
}
const std::vector<SkippedSample>& Batch::skipped() const {
  return slot_->skipped;
}

const std::vector<FieldSpec>& Batch::fields() const {
  return *slot_->fields;
}

bool Batch::has_targets() const {
  return !slot_->targets.empty();
}

ImageTargets Batch::targets(std::size_t i) const {
  if (slot_->targets.empty() || i >= size()) {
    throw Error("Batch::targets(" + std::to_string(i) + "): the batch has " +
                std::to_string(size()) + " samples" +
                (slot_->targets.empty() ? ", without targets (no option annotations)" : ""));
  }
  const detail::TargetPlace& place = slot_->targets[i];
  const std::size_t plane =
      static_cast<std::size_t>(slot_->height) * static_cast<std::size_t>(slot_->width);
  return {
      .boxes = std::span<const float>(slot_->boxes)
                   .subspan(4 * std::size_t{place.first}, 4 * std::size_t{place.count}),
      .labels = std::span<const std::int64_t>(slot_->box_labels).subspan(place.first, place.count),
      .flags = std::span<const std::uint8_t>(slot_->box_flags).subspan(place.first, place.count),
      .masks = std::span<const std::uint8_t>(slot_->masks)
                   .subspan(place.mask_first, plane * place.mask_planes),
      .mask_planes = place.mask_planes,
      .image_id = place.image_id,
      .orig_width = place.orig_width,
      .orig_height = place.orig_height,
      .width = place.width,
      .height = place.height,
      .scale_x = place.scale_x,
      .scale_y = place.scale_y,
      .pad_x = place.pad_x,
      .pad_y = place.pad_y};
}

std::string_view Batch::field(std::size_t i, std::size_t f) const {
  const std::vector<FieldSpec>& specs = fields();
  if (f >= specs.size() || i >= size()) {
    throw Error("Batch::field(" + std::to_string(i) + ", " + std::to_string(f) +
                "): the batch has " + std::to_string(size()) + " samples of " +
                std::to_string(specs.size()) + " fields");
  }
  if (specs[f].kind == FieldKind::kClass) {
    throw Error("Batch::field(): field '" + specs[f].entry + "' is the label: use labels()");
  }
  if (specs[f].kind == FieldKind::kKey) {
    return std::string_view(slot_->keys).substr(slot_->key_at[i].at, slot_->key_at[i].size);
  }
  const auto member = static_cast<std::size_t>(
      std::count_if(specs.begin(), specs.begin() + static_cast<std::ptrdiff_t>(f),
                    [](const FieldSpec& spec) { return reads_member(spec.kind); }));
  const ByteSpan span = slot_->spans[i * (slot_->member_fields + 1) + 1 + member];
  return {detail::field_base(*slot_, i) + span.at, span.size};
}

std::int64_t Batch::field_integer(std::size_t i, std::size_t f) const {
  const std::string_view text = field(i, f);
  if (fields()[f].kind != FieldKind::kInteger) {
    throw Error("Batch::field_integer(): field '" + fields()[f].entry + "' is not an integer");
  }
  return integer_value({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

}  // namespace feedrate
