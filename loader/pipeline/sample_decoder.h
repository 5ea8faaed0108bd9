// The decode stage (internal to loader/): decodes and augments one sample of a slot straight
// into its place in the slot's staging buffer, with a decoder per thread created once. All
// three stages of the transform run here (decode/transform.h), inside the decode time that
// telemetry records per image: a costlier recipe shows as more decode CPU per image.
//
// Decoders write uint8 HWC when the consumer wants uint8 or the device converts (CUDA); else
// they decode into per-thread scratch and write normalised float CHW. The augmentation seed is
// a pure function of (seed, epoch, sample index), so the bytes never depend on the thread.
// A detection dataset's sample is decoded whole, then options.detection moves its pixels and
// boxes together (decode/detection_transform.h); the kept boxes, labels and flags go to the
// slot's target arrays. Two transforms decode a batch in two phases (Slot::phase): a mosaic
// (load every sample, then compose each with partners of the batch), and one whose sizes vary
// (transform every sample, then place each at the batch's size, set by begin_placement).
// A sample that fails gets its error in Slot::errors ("FILE: CODE: MESSAGE"), never an exception.
// Its field members are checked here too (field_check.h): a bad one fails the sample
// ("FILE: field 'txt': PROBLEM"), so that the bad-input policy covers them.
//
// Thread-safety: decode() may run on any number of threads at once, for distinct samples.
#pragma once

#include <oneapi/tbb/enumerable_thread_specific.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "decode/decoder.h"
#include "decode/detection_mosaic.h"
#include "decode/detection_transform.h"
#include "decode/format.h"
#include "decode/mask_raster.h"
#include "feedrate/dataset.h"
#include "feedrate/options.h"
#include "feedrate/trace.h"
#include "loader/dataset/annotations/annotation_table.h"
#include "loader/pipeline/slot.h"
#include "loader/pipeline/telemetry.h"

namespace feedrate {

class SampleDecoder {
 public:
  SampleDecoder(const Dataset& dataset, const LoaderOptions& options, bool decode_to_u8,
                Telemetry& telemetry, TraceRecorder& trace);

  // Bytes one decoded sample takes in the staging buffer: size x size x 3, as uint8 or float.
  static std::size_t bytes_per_sample(int size, bool decode_to_u8);
  // Decodes sample `i` of `slot` unless its read already failed.
  void decode(detail::Slot& slot, std::size_t i);
  // The batch's samples are decoded in two phases: phase 1 starts once every sample's phase 0
  // is done, after begin_placement.
  bool two_phase() const { return two_phase_; }
  // Between the phases of a batch whose sizes vary: sets the batch's height and width (its
  // largest transformed image, each rounded up to kPadMultiple) and its sample_bytes. A no-op
  // for a mosaic. Call on one thread, with no decode of the batch running.
  void begin_placement(detail::Slot& slot) const;

 private:
  struct Worker {
    explicit Worker(const decode::DecodeLimits& limits) : decoder(limits) {}
    decode::Decoder decoder;            // any format, chosen by content
    std::vector<std::uint8_t> scratch;  // HWC pixels before conversion to float NCHW
    // Detection: the whole decoded image, its boxes and the transform that moves them.
    std::vector<std::uint8_t> image;
    decode::DetectionTargets targets;
    decode::DetectionTransformer transformer;
    std::vector<decode::PolygonRange> polygons;  // an annotation's, for the rasterizer
    std::vector<std::uint8_t> encoded_mask;      // a label map's file
    decode::RgbImage label_map;
    decode::MaskCanvas mask_canvas;   // a mosaic's load: the planes resized with the image
    std::vector<std::uint32_t> good;  // a mosaic's candidate partners
  };

  // A detection sample's whole image into worker.image, its boxes in pixels into
  // worker.targets.
  decode::DecodeStatus decode_whole(const detail::Slot& slot, std::size_t i,
                                    std::span<const std::uint8_t> encoded, Worker& worker) const;
  // Salts the sample's seed for the draw of its mosaic partners.
  static constexpr std::uint64_t kPartnerSalt = 0x70617274'6e657273ULL;
  // A mosaic's phase 0: the image decoded and resized as Ultralytics' load_image into
  // slot.loaded[i] (width 0 when it fails).
  decode::DecodeStatus load(detail::Slot& slot, std::size_t i,
                            std::span<const std::uint8_t> encoded, Worker& worker) const;
  // A mosaic's phase 1: sample i's image and three partners drawn from the batch's loaded
  // samples, through options.detection.
  decode::DecodeStatus compose(detail::Slot& slot, std::size_t i, std::uint64_t seed,
                               Worker& worker, std::span<std::uint8_t> hwc) const;
  // Sizes that vary, phase 0: sample i decoded and transformed at its own size into
  // slot.loaded[i] (pixels and kept mask planes), its kept boxes into the slot.
  decode::DecodeStatus transform_alone(detail::Slot& slot, std::size_t i,
                                       std::span<const std::uint8_t> encoded, std::uint64_t seed,
                                       Worker& worker) const;
  // Sizes that vary, phase 1: slot.loaded[i] in the top-left corner of the batch's black
  // height x width image at `out` (normalized for float layouts), and its mask planes.
  void place(detail::Slot& slot, std::size_t i, Worker& worker, std::byte* out) const;
  // options.masks "instances": every annotation's segmentation rasterized at the decoded
  // image's size into worker.targets' planes, as pycocotools' annToMask.
  decode::DecodeStatus rasterize_instances(const annotations::AnnotationTable& table,
                                           const annotations::ImageRecord& image,
                                           Worker& worker) const;
  // A folder of label maps: sample `index`'s, read on this thread and decoded as indices into
  // worker.targets (one semantic plane), which must be the decoded image's size.
  decode::DecodeStatus read_label_map(std::uint32_t index, Worker& worker) const;
  // Copies the kept boxes of sample i into its place in the slot, with the labels and flags of
  // their annotations: `parts` are the samples whose boxes the transform was given, in order.
  void keep_targets(detail::Slot& slot, std::size_t i, std::span<const std::uint32_t> parts,
                    const decode::DetectionTargets& targets, const decode::DetectionResult& result,
                    int width, int height) const;

  // Decodes and transforms sample `i` into size x size packed RGB `hwc`: the classification
  // transform, or for a detection dataset the whole image through options.detection with its
  // boxes, which land in the slot's target arrays.
  decode::DecodeStatus decode_pixels(detail::Slot& slot, std::size_t i,
                                     std::span<const std::uint8_t> encoded, std::uint64_t seed,
                                     Worker& worker, std::span<std::uint8_t> hwc) const;

  const Dataset& dataset_;
  const LoaderOptions& options_;
  std::vector<FieldSpec> member_fields_;  // the fields read from the sample's bytes, checked here
  const bool decode_to_u8_;
  const bool two_phase_;
  const std::size_t pixels_;
  const std::size_t sample_bytes_;
  const decode::DecodeLimits limits_;
  Telemetry& telemetry_;
  TraceRecorder& trace_;
  tbb::enumerable_thread_specific<std::unique_ptr<Worker>> workers_;
};

}  // namespace feedrate
