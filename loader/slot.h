// One batch slot of the loader's fixed ring (internal to loader/). A slot carries a batch from
// the I/O thread through the decoders to the consumer and back; its buffers keep their capacity
// between batches, so the steady state allocates nothing.
//
// Ownership moves with `state`, under the pipeline's mutex: kFree (ring), kReading (I/O
// thread), kDecoding (decode tasks; each touches only its own sample's fields), kRead or kReady
// (waiting for the consumer), kHeld (a Batch).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/host_memory.h"
#include "io/file.h"
#include "io/reader.h"
#include "loader/batch.h"

namespace feedrate::detail {

// What kept a batch from being ready: its reads (io), its decodes (cpu), a slot to start in
// (ram: the memory budget caps the work in flight) or the previous copy out of its staging
// buffer (h2d). Indexes the pipeline's stall counters.
enum class Stall { kIo = 0, kCpu = 1, kRam = 2, kH2d = 3 };

inline constexpr std::size_t kNoRead = static_cast<std::size_t>(-1);

struct Slot {
  enum class State { kFree, kReading, kDecoding, kRead, kReady, kHeld };
  State state = State::kFree;
  std::size_t id = 0;  // position in the ring, also the copier's slot index
  // Batch objects and exported DLPack tensors using the slot; the last one returns it.
  std::atomic<int> holders{0};

  std::uint64_t epoch = 0;
  std::size_t number = 0;  // batch position in the epoch
  std::size_t count = 0;   // samples in this batch (before skips)

  gpu::HostBuffer images;  // staging: batch_size samples of sample_bytes, as the decoders wrote
  std::size_t sample_bytes = 0;
  OutputLayout layout = OutputLayout::kUint8NHWC;  // what the consumer receives
  int size = 0;                                    // images are size x size
  gpu::Device device;  // where batches are delivered; the host delivers `images` itself

  std::vector<std::int32_t> labels;
  std::vector<std::uint32_t> indices;
  std::vector<std::string> errors;  // per sample; empty means decoded
  std::vector<SkippedSample> skipped;

  gpu::HostBuffer encoded;  // every sample's bytes, back to back (grows, never shrinks)
  std::vector<std::size_t> encoded_offset;
  std::vector<io::ReadRequest> reads;
  std::vector<std::size_t> read_of_sample;    // which read holds each sample (kNoRead: none)
  std::vector<std::uint64_t> offset_in_read;  // where in that read's bytes the sample starts
  gpu::HostBuffer chunks;                     // multi-member tar chunks before slicing
  std::vector<io::File> files;                // per-sample files (image folders, file lists)

  std::atomic<std::size_t> pending{0};  // decode tasks not finished
  Stall delayed_by = Stall::kIo;        // while reading: what delayed the start of its reads
};

}  // namespace feedrate::detail
