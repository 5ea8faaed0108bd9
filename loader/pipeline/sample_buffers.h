// The remote read-ahead's sample buffers (internal to loader/): a GET's samples arrive each into
// a buffer of its own (io/remote/fetch_destination.h), which take() hands back once the sample
// was copied into its batch. Buffers are reused, so that the steady state allocates nothing per
// sample: acquire() gives the smallest free buffer that fits, unless it is more than twice the
// size asked (its memory would go uncounted by the read-ahead's window), else makes one rounded
// up to kGrain. release() keeps every buffer for reuse; a buffer is made only after the free
// ones too small for what is asked are let go, smallest first, until the buffers made and not
// let go, in use or free, hold at most `most_bytes` (twice the read-ahead's window: what the
// window holds in use, rounded up, and room to spare) with the new one. So a steady read-ahead
// reuses the buffers of its first windows, across epochs too.
// Thread-safety: none; its read-ahead guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>

namespace feedrate {

class SampleBuffers {
 public:
  static constexpr std::size_t kGrain = 1 << 10;

  // A buffer of `capacity` bytes, not zeroed when made.
  class Buffer {
   public:
    Buffer() = default;
    std::span<std::byte> first(std::size_t size) const { return {data_.get(), size}; }
    std::size_t capacity() const { return capacity_; }
    explicit operator bool() const { return data_ != nullptr; }

   private:
    friend class SampleBuffers;
    std::unique_ptr<std::byte[]> data_;
    std::size_t capacity_ = 0;
  };

  explicit SampleBuffers(std::uint64_t most_bytes) : most_bytes_(most_bytes) {}

  Buffer acquire(std::size_t size);
  void release(Buffer buffer);

  std::uint64_t free_bytes() const { return free_bytes_; }
  // Of the buffers made and not let go, in use or free.
  std::uint64_t made_bytes() const { return made_bytes_; }
  // Buffers made so far.
  std::uint64_t made() const { return made_; }

 private:
  const std::uint64_t most_bytes_;
  std::multimap<std::size_t, std::unique_ptr<std::byte[]>> free_;  // by capacity
  std::uint64_t free_bytes_ = 0;
  std::uint64_t made_bytes_ = 0;
  std::uint64_t made_ = 0;
};

}  // namespace feedrate
