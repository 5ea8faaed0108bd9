// One batch slot of the loader's fixed ring (internal to loader/). A slot carries a batch from
// the I/O thread through the decoders and the copier to the consumer and back; its buffers keep
// their capacity between batches, so the steady state allocates nothing.
//
// Ownership moves with `state`, under the ring's mutex (loader/pipeline/slot_ring.h):
//   kFree       the ring's free list
//   kReading    the I/O thread (BatchReader sets it up, its sample source fills the bytes)
//   kRead       read, waiting for the consumer to decode it (num_workers 0 only)
//   kDecoding   decode tasks; each touches only its own sample's fields
//   kCopying    the copier: bad-input policy, then the asynchronous submit to the device
//   kReady      waiting for the consumer (on a CUDA device the copy may still be in flight)
//   kHeld       a Batch, or DLPack tensors exported from it
//   kReturning  released, but a copy may still read its staging buffer: not free yet
// The same states run on the host backend, whose copy is a no-op, so CPU tests exercise them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "feedrate/batch.h"
#include "gpu/device.h"
#include "gpu/element_type.h"
#include "gpu/host_memory.h"
#include "io/file.h"
#include "io/reader.h"

namespace feedrate::detail {

// What kept a batch from being ready: its reads (io), its decodes (cpu), a slot to start in
// (ram: the memory budget caps the work in flight) or a copy to the device (h2d: submitting
// it, or the previous copy still reading the staging buffer the batch needs). Indexes the
// stall counters (loader/pipeline/telemetry.h).
enum class Stall { kIo = 0, kCpu = 1, kRam = 2, kH2d = 3 };
inline constexpr int kStallKinds = 4;

inline constexpr std::size_t kNoRead = static_cast<std::size_t>(-1);

// The element type of a slot's images on its device in `layout`: what the copier delivers and
// the DLPack export describes.
constexpr gpu::ElementType element_type(OutputLayout layout) {
  switch (layout) {
    case OutputLayout::kUint8NHWC:
      return gpu::ElementType::kUint8;
    case OutputLayout::kFloat16NCHW:
      return gpu::ElementType::kFloat16;
    case OutputLayout::kFloat32NCHW:
      return gpu::ElementType::kFloat32;
  }
  return gpu::ElementType::kUint8;
}

// Where a detection sample's targets lie in its slot's arrays, and what the decode stage found:
// a region of `capacity` boxes from `first` (the image's annotations: a transform drops boxes,
// never adds them), of which `count` were kept, and the map back to the source image. Its mask
// planes (size x size bytes each: one a kept box, or one semantic map) start at `mask_first`
// of Slot::masks.
struct TargetPlace {
  std::uint32_t first = 0;
  std::uint32_t capacity = 0;
  std::uint32_t count = 0;
  std::size_t mask_first = 0;
  std::uint32_t mask_planes = 0;
  std::int64_t image_id = 0;
  int orig_width = 0, orig_height = 0;
  int width = 0, height = 0;  // the delivered image's own (the batch's, unless sizes vary)
  float scale_x = 1, scale_y = 1, pad_x = 0, pad_y = 0;
};

// A two-phase batch's first phase: for a mosaic (SampleDecoder::load), a sample's image decoded
// and resized as Ultralytics' load_image does, with its boxes in that image's pixels; for a
// transform whose sizes vary (SampleDecoder::transform_alone), the transformed image and its
// kept mask planes at its own size, before the batch's size is known. Capacity kept between
// batches.
struct LoadedImage {
  std::vector<std::uint8_t> pixels;  // packed RGB
  int width = 0, height = 0;         // 0: not loaded (its decode failed)
  int orig_width = 0, orig_height = 0;
  std::vector<float> boxes;         // 4 a box, XYXY (a mosaic's)
  std::vector<std::uint8_t> masks;  // planes of width x height (sizes that vary)
};

struct Slot {
  enum class State { kFree, kReading, kRead, kDecoding, kCopying, kReady, kHeld, kReturning };
  State state = State::kFree;
  std::size_t id = 0;  // position in the ring, also the copier's slot index
  // Batch objects and exported DLPack tensors using the slot; the last one returns it.
  std::atomic<int> holders{0};

  std::uint64_t epoch = 0;
  std::size_t number = 0;  // batch position in the epoch
  std::size_t count = 0;   // samples in this batch (before skips)
  // Under on_bad="skip" a slot is a read of the epoch's stream of samples (batch_filler.h):
  // `taken` of its good samples went to earlier batches; `extra`: a read beyond the epoch's
  // batches that makes up for skipped samples, whose first `repeats_from` samples were not
  // read before in the epoch (the rest repeat its start: their skips are not counted again).
  std::size_t taken = 0;
  bool extra = false;
  std::size_t repeats_from = 0;
  bool decoded = false;  // num_workers 0: the consumer decoded it (as a batch's source)

  // Staging: the batch's samples, sample_bytes apart, as the decoders wrote them. Its capacity
  // is batch_size samples of size x size; a batch's images are height x width, which is
  // size x size unless the detection transform's sizes vary (DetectionSpec::varies): then each
  // batch sets them, its largest image rounded up to 32, when its images are transformed.
  gpu::HostBuffer images;
  std::size_t sample_bytes = 0;
  OutputLayout layout = OutputLayout::kUint8NHWC;  // what the consumer receives
  int size = 0;
  int height = 0, width = 0;
  gpu::Device device;  // where batches are delivered; the host delivers `images` itself

  std::vector<std::int32_t> labels;
  std::vector<std::uint32_t> indices;
  // What each sample carries (LoaderOptions::fields), shared by the loader's slots and its
  // batches; `member_fields` of them are read from the sample's bytes (reads_member).
  std::shared_ptr<const std::vector<FieldSpec>> fields;
  std::size_t member_fields = 0;
  // When member_fields > 0, per sample: the image's span, then each member field's, inside the
  // sample's bytes at encoded_offset (so the fields stay in `encoded` until the slot is reused),
  // or, when fields_in_values, inside `field_values`.
  std::vector<ByteSpan> spans;
  // A manifest's member fields (Dataset::holds_field_values): copied from the index when the
  // batch is read, since they are in no sample's bytes, and owned by the slot like its keys.
  bool fields_in_values = false;
  std::string field_values;
  // Per sample (empty: none), 1 where its member fields lie in `field_values` although the
  // slot's others are in `encoded`: a sample copied in from another slot (sample_move.h).
  std::vector<std::uint8_t> fields_moved;
  // __key__, when asked (has_keys): the samples' keys back to back, and where each one lies.
  bool has_keys = false;
  std::string keys;
  std::vector<ByteSpan> key_at;
  // Detection datasets (Dataset::annotations()): per sample its targets' place, and the
  // batch's boxes (4 floats each, the delivered image's pixels), labels and flags (AnnotationFlag)
  // in those regions; empty otherwise.
  bool has_targets = false;
  std::vector<TargetPlace> targets;
  std::vector<float> boxes;
  std::vector<std::int64_t> box_labels;
  std::vector<std::uint8_t> box_flags;
  std::vector<std::uint8_t> masks;
  // A mosaic transform decodes in two phases: every sample is loaded (phase 0), then each is
  // composed with three partners of the batch (phase 1); so does one whose sizes vary: every
  // sample is transformed (phase 0), then placed at the batch's size (phase 1). `loaded` holds
  // phase 0's images.
  int phase = 0;
  std::vector<LoadedImage> loaded;
  std::vector<std::string> errors;  // per sample; empty means decoded
  std::vector<SkippedSample> skipped;
  // Set by the copier when the batch must end the epoch (a bad sample under the `error`
  // policy, or a device error); raised to the consumer when it reaches this batch.
  std::exception_ptr failure;

  // Every read of the batch back to back: single files and tar members, and multi-member tar
  // chunks, which decoders read in place (grows, never shrinks).
  gpu::HostBuffer encoded;
  std::vector<std::size_t> encoded_offset;  // where each sample's bytes start in `encoded`
  std::vector<std::size_t> encoded_size;    // how many: the source's, or its cache entry's
  std::vector<std::uint8_t> from_cache;  // 1: read from the pack cache (loader/cache/pack_cache.h)
  std::vector<io::ReadRequest> reads;
  std::vector<std::size_t> read_of_sample;  // which read holds each sample (kNoRead: none)
  std::vector<io::File> files;              // per-sample files (image folders, file lists)

  std::atomic<std::size_t> pending{0};  // decode tasks not finished
  Stall delayed_by = Stall::kIo;        // while reading: what delayed the start of its reads
};

// Where sample i's member field spans point: into `field_values` (a manifest's, or a sample
// copied in from another slot) or into the sample's own bytes in `encoded`.
inline const char* field_base(const Slot& slot, std::size_t i) {
  if (slot.fields_in_values || (i < slot.fields_moved.size() && slot.fields_moved[i] != 0)) {
    return slot.field_values.data();
  }
  return reinterpret_cast<const char*>(slot.encoded.data()) + slot.encoded_offset[i];
}

}  // namespace feedrate::detail
