// Plans sequential reads of one file (a tar shard): consecutive byte ranges that lie close
// together are read as one large chunk instead of one read each, which is what a disk that
// seeks (an HDD reaches ~100-200 random IOPS) needs to deliver its sequential bandwidth.
//
// Thread-safety: a pure function of its arguments; call it from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace feedrate::io {

struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;

  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

// Where one range's bytes sit: in which chunk, from which byte of it.
struct ChunkSlice {
  std::size_t chunk = 0;
  std::uint64_t offset = 0;

  friend bool operator==(const ChunkSlice&, const ChunkSlice&) = default;
};

struct ChunkPlan {
  std::vector<ByteRange> chunks;   // the reads to issue, in order
  std::vector<ChunkSlice> slices;  // one per input range, in input order
};

struct ChunkPlanner {
  static constexpr std::uint64_t kDefaultChunkBytes = std::uint64_t{4} << 20;
  static constexpr std::uint64_t kDefaultMaxGap = std::uint64_t{64} << 10;

  // A chunk spans at most this many bytes, unless one range alone is longer (then that range
  // is a chunk of its own).
  std::uint64_t chunk_bytes = kDefaultChunkBytes;
  // A range joins the current chunk only if it starts less than this many bytes after the
  // chunk's end: reading a small gap (tar headers and padding) is cheaper than a new request.
  std::uint64_t max_gap = kDefaultMaxGap;

  // Groups `ranges`, taken in the given (read) order: a range joins the chunk of the range
  // before it when it starts no earlier than that chunk (so earlier slices keep their offsets),
  // less than max_gap past its end, and the chunk would still span at most chunk_bytes.
  // Overlapping and repeated ranges may share a chunk.
  ChunkPlan plan(std::span<const ByteRange> ranges) const;
};

}  // namespace feedrate::io
