// Where a ranged GET's bytes go as they arrive (internal to io/remote/; a RangeFetcher job's):
// one caller-owned buffer that holds the whole range, or pieces of the range each into a buffer
// of its own, the bytes between pieces read and dropped. Scattering the range as it arrives is
// what lets a caller that fetches several neighbouring samples in one GET hold each sample's
// bytes apart with no copy between the transfer and its buffers.
// Thread-safety: a value; deliver() writes to the caller's buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace feedrate::io {

// A part of a range and the buffer its bytes go to: `at` bytes from the range's start.
struct FetchPiece {
  std::uint64_t at = 0;
  std::span<std::byte> dest;  // caller-owned
};

class FetchDestination {
 public:
  FetchDestination() = default;
  // The whole range, dest.size() bytes.
  explicit FetchDestination(std::span<std::byte> dest) : pieces_{{0, dest}} {}
  // Pieces in ascending order of `at`, not overlapping, the first at 0: the range ends with the
  // last piece. Throws std::invalid_argument otherwise.
  explicit FetchDestination(std::vector<FetchPiece> pieces);

  // The range's length in bytes.
  std::uint64_t size() const {
    return pieces_.empty() ? 0 : pieces_.back().at + pieces_.back().dest.size();
  }
  // Copies `bytes`, which arrived `at` bytes from the range's start, to where they go.
  void deliver(std::uint64_t at, std::span<const std::byte> bytes) const;

 private:
  std::vector<FetchPiece> pieces_;
};

}  // namespace feedrate::io
