#include "loader/pipeline/sample_decoder.h"

#include <algorithm>
#include <cstring>

#include "decode/augment_policy.h"
#include "decode/layout.h"
#include "decode/random.h"
#include "gpu/trace.h"
#include "io/file.h"
#include "loader/host/system_info.h"
#include "loader/pipeline/field_check.h"

namespace feedrate {

namespace {

// A width x height image of `channels` bytes a pixel into the top-left corner of an
// out_width x out_height one, the rest `fill`.
void pad_into(const std::uint8_t* image, int width, int height, int channels, std::uint8_t* out,
              int out_width, int out_height, std::uint8_t fill) {
  const auto row = static_cast<std::size_t>(width) * static_cast<std::size_t>(channels);
  const auto out_row = static_cast<std::size_t>(out_width) * static_cast<std::size_t>(channels);
  for (int y = 0; y < out_height; ++y) {
    std::uint8_t* line = out + static_cast<std::size_t>(y) * out_row;
    if (y < height) {
      std::memcpy(line, image + static_cast<std::size_t>(y) * row, row);
      std::memset(line + row, fill, out_row - row);
    } else {
      std::memset(line, fill, out_row);
    }
  }
}

}  // namespace

SampleDecoder::SampleDecoder(const Dataset& dataset, const LoaderOptions& options,
                             bool decode_to_u8, Telemetry& telemetry, TraceRecorder& trace)
    : dataset_(dataset),
      options_(options),
      decode_to_u8_(decode_to_u8),
      two_phase_(options.detection.two_phase()),
      pixels_(static_cast<std::size_t>(options.transform.size) * options.transform.size),
      sample_bytes_(bytes_per_sample(options.transform.size, decode_to_u8)),
      limits_{.max_pixels = options.max_pixels, .on_warning = options.on_warning},
      telemetry_(telemetry),
      trace_(trace),
      workers_([this] { return std::make_unique<Worker>(limits_); }) {
  for (const FieldSpec& field : dataset.spec().fields) {
    if (reads_member(field.kind)) member_fields_.push_back(field);
  }
}

std::size_t SampleDecoder::bytes_per_sample(int size, bool decode_to_u8) {
  const std::size_t values = static_cast<std::size_t>(size) * static_cast<std::size_t>(size) * 3;
  return decode_to_u8 ? values : values * sizeof(float);
}

void SampleDecoder::decode(detail::Slot& slot, std::size_t i) {
  if (!slot.errors[i].empty()) return;
  const auto start = telemetry_.clock().now();
  const std::uint64_t cpu_start = thread_cpu_ns();
  const std::uint32_t index = slot.indices[i];
  const auto* sample =
      reinterpret_cast<const std::uint8_t*>(slot.encoded.data() + slot.encoded_offset[i]);
  const std::size_t spans = member_fields_.size() + 1;
  const std::span<const std::uint8_t> encoded =
      slot.spans.empty() ? std::span<const std::uint8_t>(sample, slot.encoded_size[i])
                         : std::span<const std::uint8_t>(sample + slot.spans[i * spans].at,
                                                         slot.spans[i * spans].size);
  std::byte* out = slot.images.data() + i * slot.sample_bytes;
  const std::uint64_t seed = decode::sample_seed(options_.seed, slot.epoch, index);
  Worker& worker = *workers_.local();

  gpu::TraceRange range("decode");
  decode::DecodeStatus status;
  if (two_phase_ && slot.phase == 0) {
    status = options_.detection.mosaic() ? load(slot, i, encoded, worker)
                                         : transform_alone(slot, i, encoded, seed, worker);
  } else if (options_.detection.varies()) {
    place(slot, i, worker, out);
  } else if (decode_to_u8_) {
    status = decode_pixels(slot, i, encoded, seed, worker,
                           {reinterpret_cast<std::uint8_t*>(out), sample_bytes_});
    if (status.ok()) {
      decode::erase_uint8_hwc(options_.transform.erase, seed, options_.transform.size,
                              reinterpret_cast<std::uint8_t*>(out));
    }
  } else {
    worker.scratch.resize(pixels_ * 3);
    status = decode_pixels(slot, i, encoded, seed, worker, worker.scratch);
    if (status.ok()) {
      decode::hwc_to_chw_normalized(worker.scratch.data(), pixels_,
                                    options_.transform.normalization,
                                    reinterpret_cast<float*>(out));
      decode::erase_float_chw(options_.transform.erase, seed, options_.transform.size,
                              reinterpret_cast<float*>(out));
    }
  }
  if (!status.ok()) {
    slot.errors[i] =
        dataset_.describe(index) + ": " + decode::errc_name(status.code) + ": " + status.message;
  }
  const auto* fields = slot.fields_in_values
                           ? reinterpret_cast<const std::uint8_t*>(slot.field_values.data())
                           : sample;
  for (std::size_t k = 0; k < member_fields_.size() && slot.errors[i].empty(); ++k) {
    const ByteSpan span = slot.spans[i * spans + 1 + k];
    const std::string problem =
        field_problem(member_fields_[k].kind, {fields + span.at, span.size});
    if (!problem.empty()) {
      slot.errors[i] =
          dataset_.describe(index) + ": field '" + member_fields_[k].entry + "': " + problem;
    }
  }
  const auto end = telemetry_.clock().now();
  telemetry_.decoded(io::nanoseconds_between(start, end), thread_cpu_ns() - cpu_start);
  trace_.span("decode", start, end, index);
}

decode::DecodeStatus SampleDecoder::decode_pixels(detail::Slot& slot, std::size_t i,
                                                  std::span<const std::uint8_t> encoded,
                                                  std::uint64_t seed, Worker& worker,
                                                  std::span<std::uint8_t> hwc) const {
  const annotations::AnnotationTable* table = dataset_.annotations();
  if (table == nullptr) return worker.decoder.decode(encoded, options_.transform, seed, hwc);
  if (options_.detection.mosaic()) return compose(slot, i, seed, worker, hwc);

  decode::DecodeStatus status = decode_whole(slot, i, encoded, worker);
  if (!status.ok()) return status;
  const int width = worker.decoder.width();
  const int height = worker.decoder.height();
  const decode::DetectionResult result = worker.transformer.run(
      options_.detection, worker.image, width, height, worker.targets, seed, hwc);
  const std::array<std::uint32_t, 1> own{static_cast<std::uint32_t>(i)};
  keep_targets(slot, i, own, worker.targets, result, width, height);
  return status;
}

decode::DecodeStatus SampleDecoder::transform_alone(detail::Slot& slot, std::size_t i,
                                                    std::span<const std::uint8_t> encoded,
                                                    std::uint64_t seed, Worker& worker) const {
  detail::LoadedImage& loaded = slot.loaded[i];
  loaded.width = 0;  // not transformed: not in the batch's size
  decode::DecodeStatus status = decode_whole(slot, i, encoded, worker);
  if (!status.ok()) return status;
  const int width = worker.decoder.width();
  const int height = worker.decoder.height();
  const decode::DetectionResult result = worker.transformer.run_variable(
      options_.detection, worker.image, width, height, worker.targets, seed, loaded.pixels);
  if (result.width > options_.transform.size || result.height > options_.transform.size) {
    // The batch's buffers were sized by the sizes the annotations state (a transform bounded
    // by none of its steps): this image is larger than its annotation says.
    return {decode::DecodeErrc::kCorrupt,
            "the image is " + std::to_string(width) + "x" + std::to_string(height) +
                ", larger than its annotation states: its transformed " +
                std::to_string(result.width) + "x" + std::to_string(result.height) +
                " exceeds the batch buffers' " + std::to_string(options_.transform.size) + "x" +
                std::to_string(options_.transform.size)};
  }
  const std::array<std::uint32_t, 1> own{static_cast<std::uint32_t>(i)};
  keep_targets(slot, i, own, worker.targets, result, width, height);
  loaded.masks.swap(worker.targets.masks);
  loaded.height = result.height;
  loaded.width = result.width;
  return status;
}

void SampleDecoder::begin_placement(detail::Slot& slot) const {
  if (!options_.detection.varies()) return;
  int height = 0, width = 0;
  for (std::size_t i = 0; i < slot.count; ++i) {
    if (!slot.errors[i].empty()) continue;
    height = std::max(height, slot.loaded[i].height);
    width = std::max(width, slot.loaded[i].width);
  }
  slot.height = padded_size(height);
  slot.width = padded_size(width);
  const auto values =
      static_cast<std::size_t>(slot.height) * static_cast<std::size_t>(slot.width) * 3;
  slot.sample_bytes = decode_to_u8_ ? values : values * sizeof(float);
}

void SampleDecoder::place(detail::Slot& slot, std::size_t i, Worker& worker, std::byte* out) const {
  const detail::LoadedImage& image = slot.loaded[i];
  const std::size_t pixels =
      static_cast<std::size_t>(slot.height) * static_cast<std::size_t>(slot.width);
  // Black around the image: 0 in uint8, normalized with the image in float layouts.
  if (decode_to_u8_) {
    pad_into(image.pixels.data(), image.width, image.height, 3,
             reinterpret_cast<std::uint8_t*>(out), slot.width, slot.height, 0);
  } else {
    worker.scratch.resize(pixels * 3);
    pad_into(image.pixels.data(), image.width, image.height, 3, worker.scratch.data(), slot.width,
             slot.height, 0);
    decode::hwc_to_chw_normalized(worker.scratch.data(), pixels, options_.transform.normalization,
                                  reinterpret_cast<float*>(out));
  }
  const detail::TargetPlace& place = slot.targets[i];
  const std::size_t plane = static_cast<std::size_t>(image.width) * image.height;
  const std::uint8_t fill = dataset_.has_mask_files() ? 255 : 0;
  for (std::uint32_t p = 0; p < place.mask_planes; ++p) {
    pad_into(image.masks.data() + p * plane, image.width, image.height, 1,
             slot.masks.data() + place.mask_first + p * pixels, slot.width, slot.height, fill);
  }
}

decode::DecodeStatus SampleDecoder::decode_whole(const detail::Slot& slot, std::size_t i,
                                                 std::span<const std::uint8_t> encoded,
                                                 Worker& worker) const {
  decode::DecodeStatus status = worker.decoder.decode_full(encoded, worker.image);
  if (!status.ok()) return status;
  const annotations::AnnotationTable& table = *dataset_.annotations();
  const annotations::ImageRecord& image = table.images[dataset_.annotation_image(slot.indices[i])];
  decode::DetectionTargets& targets = worker.targets;
  const std::span<const float> boxes = table.image_boxes(image);
  targets.boxes.assign(boxes.begin(), boxes.end());
  if (table.boxes_normalized) {
    annotations::to_pixels(targets.boxes, worker.decoder.width(), worker.decoder.height());
  }
  targets.masks.clear();
  targets.planes = 0;
  targets.semantic = false;
  if (options_.masks == kInstanceMasks) return rasterize_instances(table, image, worker);
  if (dataset_.has_mask_files()) return read_label_map(slot.indices[i], worker);
  return status;
}

decode::DecodeStatus SampleDecoder::rasterize_instances(const annotations::AnnotationTable& table,
                                                        const annotations::ImageRecord& image,
                                                        Worker& worker) const {
  const int width = worker.decoder.width();
  const int height = worker.decoder.height();
  const std::size_t plane = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  decode::DetectionTargets& targets = worker.targets;
  targets.masks.assign(plane * image.count, 0);
  targets.planes = static_cast<int>(image.count);
  for (std::uint32_t k = 0; k < image.count; ++k) {
    const annotations::Segment& segment = table.segments[image.first + k];
    const std::span<std::uint8_t> mask(targets.masks.data() + k * plane, plane);
    if (segment.kind == annotations::SegmentKind::kPolygons) {
      worker.polygons.clear();
      for (std::uint32_t p = segment.first; p < segment.first + segment.count; ++p) {
        worker.polygons.push_back({table.polygons[p].first, table.polygons[p].count});
      }
      decode::rasterize_polygons(table.points, worker.polygons, height, width, mask);
    } else if (segment.kind == annotations::SegmentKind::kRle) {
      if (segment.rle_height != height || segment.rle_width != width) {
        return {decode::DecodeErrc::kCorrupt,
                "annotation " + std::to_string(k) + "'s RLE mask is " +
                    std::to_string(segment.rle_width) + "x" + std::to_string(segment.rle_height) +
                    ", its image " + std::to_string(width) + "x" + std::to_string(height)};
      }
      const std::span<const std::uint32_t> counts(table.rle_counts.data() + segment.first,
                                                  segment.count);
      if (std::string problem = decode::decode_rle(counts, height, width, mask); !problem.empty()) {
        return {decode::DecodeErrc::kCorrupt,
                "annotation " + std::to_string(k) + "'s RLE mask: " + problem};
      }
    }
  }
  return {};
}

decode::DecodeStatus SampleDecoder::read_label_map(std::uint32_t index, Worker& worker) const {
  const std::filesystem::path& path = dataset_.mask_file(index);
  std::error_code error;
  const io::File file = io::File::open(path, error);
  const std::uint64_t size = error ? 0 : file.size(error);
  if (!error) {
    worker.encoded_mask.resize(size);
    io::pread_exact(file.fd(), 0, worker.encoded_mask.data(), size, error);
  }
  if (error) {
    return {decode::DecodeErrc::kCorrupt,
            "label map " + path.string() + " cannot be read: " + error.message()};
  }
  decode::DecodeStatus status =
      decode::decode_png_label_map(worker.encoded_mask, limits_, worker.label_map);
  if (!status.ok()) {
    status.message = "label map " + path.string() + ": " + status.message;
    return status;
  }
  if (worker.label_map.width != worker.decoder.width() ||
      worker.label_map.height != worker.decoder.height()) {
    return {decode::DecodeErrc::kCorrupt,
            "label map " + path.string() + " is " + std::to_string(worker.label_map.width) + "x" +
                std::to_string(worker.label_map.height) + ", its image " +
                std::to_string(worker.decoder.width()) + "x" +
                std::to_string(worker.decoder.height())};
  }
  decode::DetectionTargets& targets = worker.targets;
  targets.masks.swap(worker.label_map.pixels);
  targets.planes = 1;
  targets.semantic = true;
  return {};
}

decode::DecodeStatus SampleDecoder::load(detail::Slot& slot, std::size_t i,
                                         std::span<const std::uint8_t> encoded,
                                         Worker& worker) const {
  detail::LoadedImage& loaded = slot.loaded[i];
  loaded.width = 0;  // not loaded: no partner of a mosaic
  decode::DecodeStatus status = decode_whole(slot, i, encoded, worker);
  if (!status.ok()) return status;
  loaded.orig_width = worker.decoder.width();
  loaded.orig_height = worker.decoder.height();
  loaded.boxes = worker.targets.boxes;
  int width = 0, height = 0;
  decode::load_image(worker.image, loaded.orig_width, loaded.orig_height,
                     options_.detection.steps.front().width, loaded.pixels, width, height,
                     loaded.boxes);
  // The mask planes follow by nearest sampling (Ultralytics resizes its segments' points).
  decode::DetectionTargets& targets = worker.targets;
  worker.mask_canvas.reset(targets.masks, targets.planes, loaded.orig_width, loaded.orig_height,
                           targets.semantic ? 255 : 0);
  if (targets.planes > 0) worker.mask_canvas.resize(width, height);
  worker.mask_canvas.take(loaded.masks);
  loaded.height = height;
  loaded.width = width;  // last: marks the image a candidate partner
  return status;
}

decode::DecodeStatus SampleDecoder::compose(detail::Slot& slot, std::size_t i, std::uint64_t seed,
                                            Worker& worker, std::span<std::uint8_t> hwc) const {
  // Ultralytics draws a mosaic's partners from the images it loaded last; here they are drawn
  // from the batch's loaded samples, so that a seed gives the same mosaics whatever the workers.
  std::array<std::uint32_t, 4> parts{static_cast<std::uint32_t>(i)};
  worker.good.clear();
  for (std::size_t j = 0; j < slot.count; ++j) {
    if (slot.loaded[j].width > 0) worker.good.push_back(static_cast<std::uint32_t>(j));
  }
  decode::Rng rng(decode::mix64(seed ^ kPartnerSalt));
  for (std::size_t k = 1; k < parts.size(); ++k) {
    parts[k] = worker.good[rng.below(worker.good.size())];
  }
  std::array<decode::MosaicImage, 4> images;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const detail::LoadedImage& loaded = slot.loaded[parts[k]];
    images[k] = {loaded.pixels, loaded.width, loaded.height, loaded.boxes, loaded.masks};
  }
  worker.targets.semantic = dataset_.has_mask_files();
  const decode::DetectionResult result =
      worker.transformer.run_mosaic(options_.detection, images, worker.targets, seed, hwc);
  const detail::LoadedImage& own = slot.loaded[i];
  keep_targets(slot, i, parts, worker.targets, result, own.orig_width, own.orig_height);
  return {};
}

void SampleDecoder::keep_targets(detail::Slot& slot, std::size_t i,
                                 std::span<const std::uint32_t> parts,
                                 const decode::DetectionTargets& targets,
                                 const decode::DetectionResult& result, int width,
                                 int height) const {
  const annotations::AnnotationTable& table = *dataset_.annotations();
  detail::TargetPlace& place = slot.targets[i];
  place.count = static_cast<std::uint32_t>(targets.kept.size());
  place.orig_width = width;
  place.orig_height = height;
  place.width = result.width;
  place.height = result.height;
  place.scale_x = result.scale_x;
  place.scale_y = result.scale_y;
  place.pad_x = result.pad_x;
  place.pad_y = result.pad_y;
  std::copy(targets.boxes.begin(), targets.boxes.begin() + 4 * std::ptrdiff_t{place.count},
            slot.boxes.begin() + 4 * std::ptrdiff_t{place.first});
  // The kept planes at the output's size: one a kept box, or the one semantic map. When sizes
  // vary, place() pads them into the slot.
  place.mask_planes = static_cast<std::uint32_t>(targets.planes);
  if (!options_.masks.empty() && !options_.detection.varies()) {
    std::copy(targets.masks.begin(), targets.masks.end(),
              slot.masks.begin() + static_cast<std::ptrdiff_t>(place.mask_first));
  }
  // A kept box's index runs over the parts' boxes in order: find its part, then its annotation.
  for (std::uint32_t k = 0; k < place.count; ++k) {
    std::uint32_t index = targets.kept[k];
    const annotations::ImageRecord* image = nullptr;
    for (const std::uint32_t part : parts) {
      image = &table.images[dataset_.annotation_image(slot.indices[part])];
      if (index < image->count) break;
      index -= image->count;
    }
    const std::size_t annotation = image->first + index;
    slot.box_labels[place.first + k] = table.labels[annotation];
    slot.box_flags[place.first + k] = table.flags[annotation];
  }
}

}  // namespace feedrate
