#include "loader/pipeline/sample_move.h"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace feedrate {
namespace {

using detail::Slot;

// Appends `bytes` to `out`; returns where they lie there.
ByteSpan append(std::string_view bytes, std::string& out) {
  const std::size_t at = out.size();
  out += bytes;
  return {static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(bytes.size())};
}

template <typename T>
void append_range(const std::vector<T>& from, std::size_t first, std::size_t count,
                  std::vector<T>& to) {
  to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(first),
            from.begin() + static_cast<std::ptrdiff_t>(first + count));
}

}  // namespace

void move_sample(Slot& slot, std::size_t from, std::size_t to) {
  const std::size_t bytes = slot.sample_bytes;
  std::memmove(slot.images.data() + to * bytes, slot.images.data() + from * bytes, bytes);
  slot.labels[to] = slot.labels[from];
  slot.indices[to] = slot.indices[from];
  // The fields stay where they were read; their spans follow the sample.
  slot.encoded_offset[to] = slot.encoded_offset[from];
  slot.encoded_size[to] = slot.encoded_size[from];
  if (from < slot.fields_moved.size()) slot.fields_moved[to] = slot.fields_moved[from];
  if (!slot.key_at.empty()) slot.key_at[to] = slot.key_at[from];
  if (!slot.targets.empty()) slot.targets[to] = slot.targets[from];  // its boxes stay in place
  if (!slot.spans.empty()) {
    const std::size_t spans = slot.member_fields + 1;
    std::copy_n(slot.spans.begin() + static_cast<std::ptrdiff_t>(from * spans), spans,
                slot.spans.begin() + static_cast<std::ptrdiff_t>(to * spans));
  }
}

void copy_sample(const Slot& src, std::size_t from, Slot& dst, std::size_t to) {
  const std::size_t bytes = dst.sample_bytes;
  std::memcpy(dst.images.data() + to * bytes, src.images.data() + from * bytes, bytes);
  dst.labels[to] = src.labels[from];
  dst.indices[to] = src.indices[from];
  dst.encoded_offset[to] = 0;
  dst.encoded_size[to] = src.encoded_size[from];
  if (src.has_keys) {
    const ByteSpan key = src.key_at[from];
    dst.key_at[to] = append(std::string_view(src.keys).substr(key.at, key.size), dst.keys);
  }
  if (src.member_fields > 0) {
    const std::size_t spans = src.member_fields + 1;
    const char* base = detail::field_base(src, from);
    dst.spans[to * spans] = {};  // the image's bytes are not copied: it is decoded
    for (std::size_t k = 1; k < spans; ++k) {
      const ByteSpan span = src.spans[from * spans + k];
      dst.spans[to * spans + k] = append({base + span.at, span.size}, dst.field_values);
    }
    dst.fields_moved[to] = 1;
  }
  if (src.has_targets) {
    detail::TargetPlace place = src.targets[from];
    const std::size_t first = dst.box_labels.size();
    append_range(src.boxes, 4 * std::size_t{place.first}, 4 * std::size_t{place.count}, dst.boxes);
    append_range(src.box_labels, place.first, place.count, dst.box_labels);
    append_range(src.box_flags, place.first, place.count, dst.box_flags);
    const std::size_t plane =
        static_cast<std::size_t>(src.height) * static_cast<std::size_t>(src.width);
    const std::size_t mask_first = dst.masks.size();
    append_range(src.masks, place.mask_first, plane * place.mask_planes, dst.masks);
    place.first = static_cast<std::uint32_t>(first);
    place.capacity = place.count;
    place.mask_first = mask_first;
    dst.targets[to] = place;
  }
}

}  // namespace feedrate
