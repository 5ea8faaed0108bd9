// Batch memory of the host backend: page-aligned ordinary memory, the same alignment that
// pinned (cudaHostAlloc) memory has, so code written against one runs on the other.
// Thread-safety: a buffer is plain memory; synchronise access to its bytes yourself.
#pragma once

#include <cstddef>

namespace feedrate::gpu {

class HostBuffer {
 public:
  HostBuffer() = default;
  // Allocates `bytes` (rounded up to a whole page); throws std::bad_alloc on failure.
  explicit HostBuffer(std::size_t bytes);
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

// The name the run summary prints for where batches live ("host" for this backend).
inline constexpr const char* kHostDeviceName = "host";

}  // namespace feedrate::gpu
