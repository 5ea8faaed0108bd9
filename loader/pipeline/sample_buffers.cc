#include "loader/pipeline/sample_buffers.h"

#include <utility>

namespace feedrate {

SampleBuffers::Buffer SampleBuffers::acquire(std::size_t size) {
  Buffer buffer;
  const auto fits = free_.lower_bound(size);
  if (fits != free_.end() && fits->first <= 2 * size + kGrain) {
    buffer.capacity_ = fits->first;
    buffer.data_ = std::move(fits->second);
    free_bytes_ -= fits->first;
    free_.erase(fits);
    return buffer;
  }
  buffer.capacity_ = (size + kGrain - 1) / kGrain * kGrain;
  // Room for it first: the smallest free buffers go, since they fitted nothing asked.
  while (!free_.empty() && made_bytes_ + buffer.capacity_ > most_bytes_) {
    made_bytes_ -= free_.begin()->first;
    free_bytes_ -= free_.begin()->first;
    free_.erase(free_.begin());
  }
  buffer.data_ = std::make_unique_for_overwrite<std::byte[]>(buffer.capacity_);
  made_bytes_ += buffer.capacity_;
  ++made_;
  return buffer;
}

void SampleBuffers::release(Buffer buffer) {
  if (!buffer) return;
  free_bytes_ += buffer.capacity_;
  free_.emplace(buffer.capacity_, std::move(buffer.data_));
}

}  // namespace feedrate
