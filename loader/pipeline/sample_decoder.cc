#include "loader/pipeline/sample_decoder.h"

#include "decode/augment_policy.h"
#include "decode/layout.h"
#include "decode/random.h"
#include "gpu/trace.h"
#include "io/file.h"
#include "loader/host/system_info.h"
#include "loader/pipeline/field_check.h"

namespace feedrate {

SampleDecoder::SampleDecoder(const Dataset& dataset, const LoaderOptions& options,
                             bool decode_to_u8, Telemetry& telemetry, TraceRecorder& trace)
    : dataset_(dataset),
      options_(options),
      decode_to_u8_(decode_to_u8),
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
  std::byte* out = slot.images.data() + i * sample_bytes_;
  const std::uint64_t seed = decode::sample_seed(options_.seed, slot.epoch, index);
  Worker& worker = *workers_.local();

  gpu::TraceRange range("decode");
  decode::DecodeStatus status;
  if (options_.detection.mosaic() && slot.phase == 0) {
    status = load(slot, i, encoded, worker);
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
    images[k] = {loaded.pixels, loaded.width, loaded.height, loaded.boxes};
  }
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
  place.scale_x = result.scale_x;
  place.scale_y = result.scale_y;
  place.pad_x = result.pad_x;
  place.pad_y = result.pad_y;
  std::copy(targets.boxes.begin(), targets.boxes.begin() + 4 * std::ptrdiff_t{place.count},
            slot.boxes.begin() + 4 * std::ptrdiff_t{place.first});
  if (!options_.masks.empty()) {
    // The kept planes at the output's size: one a kept box, or the one semantic map.
    place.mask_planes = static_cast<std::uint32_t>(targets.masks.size() / pixels_);
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
