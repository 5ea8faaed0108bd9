#include "gpu/host_memory.h"

#include <unistd.h>

#include <cstdlib>
#include <new>
#include <utility>

namespace feedrate::gpu {
namespace {

void free_aligned(std::byte* data) noexcept {
  std::free(data);
}

}  // namespace

HostBuffer::HostBuffer(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t rounded = (bytes + page - 1) / page * page;
  data_ = static_cast<std::byte*>(std::aligned_alloc(page, rounded == 0 ? page : rounded));
  if (data_ == nullptr) throw std::bad_alloc();
  size_ = bytes;
  release_ = free_aligned;
}

HostBuffer::~HostBuffer() {
  reset();
}

void HostBuffer::reset() noexcept {
  if (data_ != nullptr) release_(data_);
  data_ = nullptr;
  size_ = 0;
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      release_(other.release_),
      pinned_(other.pinned_) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    release_ = other.release_;
    pinned_ = other.pinned_;
  }
  return *this;
}

}  // namespace feedrate::gpu
