#include "gpu/host_memory.h"

#include <unistd.h>

#include <cstdlib>
#include <new>
#include <utility>

namespace feedrate::gpu {

HostBuffer::HostBuffer(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t rounded = (bytes + page - 1) / page * page;
  data_ = static_cast<std::byte*>(std::aligned_alloc(page, rounded == 0 ? page : rounded));
  if (data_ == nullptr) throw std::bad_alloc();
  size_ = bytes;
}

HostBuffer::~HostBuffer() {
  std::free(data_);
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

}  // namespace feedrate::gpu
