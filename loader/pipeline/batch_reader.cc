#include "loader/pipeline/batch_reader.h"

#include <algorithm>
#include <utility>

#include "loader/dataset/annotations/annotation_table.h"
#include "loader/pipeline/block_reads.h"
#include "loader/pipeline/block_store.h"
#include "loader/pipeline/local_reads.h"
#include "loader/pipeline/remote_reads.h"

namespace feedrate {

using detail::kNoRead;
using detail::Slot;

namespace {

// Appends a manifest's field value to the slot's values; returns where it lies there.
ByteSpan copy_value(std::string_view value, Slot& slot) {
  const std::size_t at = slot.field_values.size();
  slot.field_values += value;
  return {static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(value.size())};
}

}  // namespace

BatchReader::BatchReader(const Dataset& dataset, const LoaderOptions& options,
                         const io::ReaderOptions& reader_options, const ReaderFactory& make_reader,
                         PackCache* cache)
    : dataset_(dataset),
      fields_(std::make_shared<const std::vector<FieldSpec>>(dataset.spec().fields)),
      keys_(std::any_of(fields_->begin(), fields_->end(),
                        [](const FieldSpec& field) { return field.kind == FieldKind::kKey; })),
      mosaic_(options.detection.mosaic()),
      two_phase_(options.detection.two_phase()),
      plane_bytes_(options.masks.empty() ? 0
                                         : static_cast<std::size_t>(options.transform.size) *
                                               static_cast<std::size_t>(options.transform.size)) {
  std::string fallback;
  std::unique_ptr<io::Reader> reader = make_reader ? make_reader(reader_options, &fallback)
                                                   : io::Reader::create(reader_options, &fallback);
  if (dataset_.is_remote()) {
    source_ = std::make_unique<RemoteReads>(dataset_, options, std::move(reader),
                                            std::move(fallback), *reader_options.clock);
  } else if (const std::size_t held = held_blocks_of(options, dataset_); held > 0) {
    source_ = std::make_unique<BlockReads>(dataset_, std::move(reader), std::move(fallback),
                                           held * options.tar_chunk_bytes, cache);
  } else {
    source_ = std::make_unique<LocalReads>(dataset_, std::move(reader), std::move(fallback),
                                           reader_options, options.tar_chunk_bytes, cache);
  }
}

void BatchReader::place_targets(Slot& slot) const {
  slot.targets.clear();
  slot.phase = 0;
  const annotations::AnnotationTable* table = dataset_.annotations();
  slot.has_targets = table != nullptr;
  if (table == nullptr) return;
  if (two_phase_ && slot.loaded.size() < slot.count) slot.loaded.resize(slot.count);
  // A mosaic gathers the boxes of its image and three partners of the batch: room for four
  // times the batch's most.
  std::uint32_t most = 0;
  if (mosaic_) {
    for (std::size_t i = 0; i < slot.count; ++i) {
      most = std::max(most, table->images[dataset_.annotation_image(slot.indices[i])].count);
    }
  }
  std::uint32_t boxes = 0;
  std::size_t mask_bytes = 0;
  for (std::size_t i = 0; i < slot.count; ++i) {
    const annotations::ImageRecord& image =
        table->images[dataset_.annotation_image(slot.indices[i])];
    const std::uint32_t capacity = mosaic_ ? 4 * most : image.count;
    slot.targets.push_back({.first = boxes,
                            .capacity = capacity,
                            .mask_first = mask_bytes,
                            .image_id = image.image_id});
    boxes += capacity;
    mask_bytes += plane_bytes_ * (dataset_.has_mask_files() ? 1 : capacity);
  }
  slot.masks.resize(mask_bytes);
  slot.boxes.resize(4 * std::size_t{boxes});
  slot.box_labels.resize(boxes);
  slot.box_flags.resize(boxes);
}

void BatchReader::read(Slot& slot) {
  set_up(slot);
  source_->read(slot);
}

void BatchReader::read_outside(Slot& slot) {
  set_up(slot);
  source_->read_outside(slot);
}

void BatchReader::set_up(Slot& slot) {
  const std::size_t n = slot.count;
  slot.labels.resize(n);
  slot.skipped.clear();
  slot.files.resize(n);
  slot.errors.assign(n, std::string());
  slot.encoded_offset.assign(n, 0);
  slot.encoded_size.resize(n);
  slot.from_cache.assign(n, 0);
  slot.read_of_sample.assign(n, kNoRead);
  slot.reads.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const SampleRef& ref = dataset_.sample(slot.indices[i]);
    slot.labels[i] = ref.label;
    slot.encoded_size[i] = ref.size;
  }
  slot.fields = fields_;
  slot.member_fields = dataset_.member_fields();
  slot.spans.clear();
  slot.fields_in_values = dataset_.holds_field_values();
  slot.field_values.clear();
  slot.fields_moved.clear();
  if (slot.member_fields > 0) {
    for (std::size_t i = 0; i < n; ++i) {
      slot.spans.push_back(dataset_.image_span(slot.indices[i]));
      for (std::size_t k = 0; k < slot.member_fields; ++k) {
        slot.spans.push_back(slot.fields_in_values
                                 ? copy_value(dataset_.field_value(slot.indices[i], k), slot)
                                 : dataset_.field_span(slot.indices[i], k));
      }
    }
  }
  place_targets(slot);
  slot.keys.clear();
  slot.key_at.clear();
  slot.has_keys = keys_;
  if (keys_) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = slot.keys.size();
      dataset_.append_key(slot.indices[i], slot.keys);
      slot.key_at.push_back(
          {static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(slot.keys.size() - at)});
    }
  }
}

}  // namespace feedrate
