// One ranged GET of the remote read-ahead (internal to loader/, RemoteWindow's): the samples it
// carries, by their places in the order, and their bytes: the range as it arrives, then, once
// split(), a piece per sample that take() lets go of on its own. Thread-safety: none; its window
// guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "feedrate/dataset.h"

namespace feedrate {

struct ReadAheadGroup {
  // A GET's destination: not zeroed when made (a vector's resize() would write every byte once
  // more before the GET does).
  class Bytes {
   public:
    Bytes() = default;
    explicit Bytes(std::size_t size)
        : data_(std::make_unique_for_overwrite<std::byte[]>(size)), size_(size) {}
    Bytes(Bytes&& other) noexcept
        : data_(std::move(other.data_)), size_(std::exchange(other.size_, 0)) {}
    Bytes& operator=(Bytes&& other) noexcept {
      data_ = std::move(other.data_);
      size_ = std::exchange(other.size_, 0);
      return *this;
    }
    std::span<std::byte> span() const { return {data_.get(), size_}; }
    std::size_t size() const { return size_; }
    void reset() {
      data_.reset();
      size_ = 0;
    }

   private:
    std::unique_ptr<std::byte[]> data_;
    std::size_t size_ = 0;
  };

  std::vector<std::size_t> positions;  // in the order of its samples, ascending
  std::size_t taken = 0;               // of those, by take()
  std::uint64_t offset = 0;            // of its first byte in the object
  Bytes bytes;                         // the range's bytes, until split into pieces
  // Once arrived (several samples, no error): each sample's bytes, as positions; a taken
  // one's are let go.
  std::vector<std::vector<std::byte>> pieces;
  bool arrived = false;
  bool local = false;    // the cache holds it: not fetched
  bool counted = false;  // in flight, among the window's GETs of this epoch
  std::string error;     // the fetcher's message when it failed

  // The bytes of `ref`, one of its samples, within the range (before split()).
  std::span<const std::byte> range_of(const SampleRef& ref) const;
  // Where `position` is among its positions, and so its piece.
  std::size_t piece_of(std::size_t position) const;
  // Moves each sample's bytes (`ref_of` a position: its sample) into a piece of its own and lets
  // the range go; returns the bytes let go (the gaps between the samples).
  std::uint64_t split(const std::function<const SampleRef&(std::size_t)>& ref_of);
};

}  // namespace feedrate
