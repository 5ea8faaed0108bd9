#include "io/remote/fetch_destination.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace feedrate::io {

FetchDestination::FetchDestination(std::vector<FetchPiece> pieces) : pieces_(std::move(pieces)) {
  std::uint64_t end = 0;
  for (const FetchPiece& piece : pieces_) {
    if (piece.at < end || (&piece == &pieces_.front() && piece.at != 0)) {
      throw std::invalid_argument(
          "fetch destination: pieces must ascend without overlapping, the first at 0");
    }
    end = piece.at + piece.dest.size();
  }
}

void FetchDestination::deliver(std::uint64_t at, std::span<const std::byte> bytes) const {
  const std::uint64_t end = at + bytes.size();
  // The last piece that starts at or before `at`: the first one the bytes may reach.
  auto piece = std::upper_bound(pieces_.begin(), pieces_.end(), at,
                                [](std::uint64_t a, const FetchPiece& p) { return a < p.at; });
  if (piece != pieces_.begin()) --piece;
  for (; piece != pieces_.end() && piece->at < end; ++piece) {
    const std::uint64_t first = std::max(at, piece->at);
    const std::uint64_t last = std::min(end, piece->at + piece->dest.size());
    if (first >= last) continue;  // the bytes lie in the gap after this piece
    std::memcpy(piece->dest.data() + (first - piece->at), bytes.data() + (first - at),
                static_cast<std::size_t>(last - first));
  }
}

}  // namespace feedrate::io
