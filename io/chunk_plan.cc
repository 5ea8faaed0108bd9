#include "io/chunk_plan.h"

#include <algorithm>

namespace feedrate::io {

ChunkPlan ChunkPlanner::plan(std::span<const ByteRange> ranges) const {
  ChunkPlan plan;
  plan.slices.reserve(ranges.size());
  for (const ByteRange& range : ranges) {
    const std::uint64_t end = range.offset + range.size;
    if (!plan.chunks.empty()) {
      ByteRange& chunk = plan.chunks.back();
      const std::uint64_t chunk_end = chunk.offset + chunk.size;
      const bool after_start = range.offset >= chunk.offset;
      const bool near = range.offset < chunk_end || range.offset - chunk_end < max_gap;
      if (after_start && near && std::max(end, chunk_end) - chunk.offset <= chunk_bytes) {
        chunk.size = std::max(end, chunk_end) - chunk.offset;
        plan.slices.push_back({plan.chunks.size() - 1, range.offset - chunk.offset});
        continue;
      }
    }
    plan.chunks.push_back(range);
    plan.slices.push_back({plan.chunks.size() - 1, 0});
  }
  return plan;
}

}  // namespace feedrate::io
