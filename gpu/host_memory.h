// Host memory for batches: page-aligned ordinary memory, or pinned (page-locked, cudaHostAlloc)
// memory that the GPU's copy engine reads directly. Both are page-aligned, so code written
// against one runs on the other. Thread-safety: a buffer is plain memory; synchronise access to
// its bytes yourself.
#pragma once

#include <cstddef>

namespace feedrate::gpu {

class HostBuffer {
 public:
  HostBuffer() = default;
  // Page-aligned pageable memory of `bytes` (rounded up to a page); throws std::bad_alloc.
  explicit HostBuffer(std::size_t bytes);
  // Pinned memory (cudaHostAlloc); throws std::runtime_error without CUDA or on failure.
  static HostBuffer pinned(std::size_t bytes);
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool is_pinned() const { return pinned_; }

 private:
  using Release = void (*)(std::byte*) noexcept;
  HostBuffer(std::byte* data, std::size_t size, Release release, bool pinned)
      : data_(data), size_(size), release_(release), pinned_(pinned) {}
  void reset() noexcept;

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  Release release_ = nullptr;
  bool pinned_ = false;
};

}  // namespace feedrate::gpu
