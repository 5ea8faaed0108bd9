// Delivers decoded batches to the device training runs on: the copier stage.
//
// Each batch slot of the loader has a staging buffer in host memory (pinned with cudaHostAlloc
// for a CUDA device, page-aligned otherwise) that decoders fill with uint8 images. submit()
// starts the slot's delivery, output() says where the delivered batch lives, wait() makes a
// consumer's CUDA stream wait for it, release() hands the slot back.
//
// CUDA backend: one non-blocking stream; per slot a device buffer for uint8 NHWC images and
// labels, an output buffer (uint8 NHWC, or float16 / float32 NCHW normalised by a kernel on the
// device, so only uint8 crosses PCIe), a "copied" event and a "released" event. submit()
// queues cudaMemcpyAsync + kernel and records "copied"; wait() is cudaStreamWaitEvent on the
// consumer's stream (the host never blocks); release() records "released" on that consumer
// stream, and the next submit() into the slot waits for it on the copy stream, so device
// memory is never overwritten while the consumer's kernels may still read it.
// staging_idle() says, without blocking, whether the slot's last copy has read its staging buffer
// (a cudaEventQuery of "copied"): the loader keeps the slot out of its free list until then.
//
// Host backend: the staging buffer is the output (decoders write the final layout there);
// every call but output() is free.
//
// Thread-safety: every call may run on any thread, concurrently for distinct slots, never for
// the same slot; the loader serialises a slot's life through its ring.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpu/device.h"
#include "gpu/element_type.h"
#include "gpu/host_memory.h"

namespace feedrate::gpu {

// Who converts to float: true when the copier for `device` normalises uint8 images into the
// float layouts on the device (CUDA), so decoders write uint8 NHWC whatever the layout; false on
// the host backend, whose decoders write the final layout into the staging buffer.
bool converts_on_device(const Device& device);

struct TransferOptions {
  Device device;
  std::size_t slots = 3;
  std::size_t batch_size = 64;
  int size = 224;                           // images are size x size x 3
  ElementType dtype = ElementType::kUint8;  // what training receives (not int32)
  // Float outputs: ((x / 255) - mean) / std. The loader copies its transform's normalization
  // (decode/layout.h) here; the defaults leave x / 255.
  std::array<float, 3> mean{0, 0, 0};
  std::array<float, 3> std{1, 1, 1};
};

// Where a delivered batch lives. Images are NHWC for uint8, NCHW for floats.
struct DeviceBatch {
  Device device;
  void* images = nullptr;
  std::int32_t* labels = nullptr;
  ElementType dtype = ElementType::kUint8;
};

class Transfer {
 public:
  virtual ~Transfer() = default;
  // Staging memory for one slot: batch_size x size x size x 3 bytes of the layout the decoders
  // write (uint8 NHWC on CUDA; the host backend's output layout otherwise).
  virtual HostBuffer allocate_staging(std::size_t bytes) = 0;
  // Copies `count` images of image_pixels each (size x size, or the batch's padded size when
  // a detection transform's sizes vary) and their labels to the device.
  virtual void submit(std::size_t slot, const HostBuffer& staging, const std::int32_t* labels,
                      std::size_t count, std::size_t image_pixels) = 0;
  virtual DeviceBatch output(std::size_t slot, const HostBuffer& staging,
                             std::int32_t* host_labels) const = 0;
  virtual void wait(std::size_t slot, void* consumer_stream) = 0;
  virtual void release(std::size_t slot) = 0;
  // True when no copy reads the slot's staging buffer any more. Never blocks.
  virtual bool staging_idle(std::size_t slot) = 0;
};

// Throws std::runtime_error (see require()) when the device cannot be used.
std::unique_ptr<Transfer> make_transfer(const TransferOptions& options);

}  // namespace feedrate::gpu
