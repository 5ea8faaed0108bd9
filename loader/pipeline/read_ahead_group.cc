#include "loader/pipeline/read_ahead_group.h"

#include <algorithm>

namespace feedrate {

std::span<const std::byte> ReadAheadGroup::range_of(const SampleRef& ref) const {
  return bytes.span().subspan(static_cast<std::size_t>(ref.offset - offset),
                              static_cast<std::size_t>(ref.size));
}

std::size_t ReadAheadGroup::piece_of(std::size_t position) const {
  const auto at = std::lower_bound(positions.begin(), positions.end(), position);
  return static_cast<std::size_t>(at - positions.begin());
}

std::uint64_t ReadAheadGroup::split(const std::function<const SampleRef&(std::size_t)>& ref_of) {
  std::uint64_t kept = 0;
  pieces.reserve(positions.size());
  for (const std::size_t position : positions) {
    const SampleRef& ref = ref_of(position);
    const std::span<const std::byte> piece = range_of(ref);
    pieces.emplace_back(piece.begin(), piece.end());
    kept += ref.size;
  }
  const std::uint64_t gaps = bytes.size() - kept;
  bytes.reset();
  return gaps;
}

}  // namespace feedrate
