// The shape of the remote read-ahead (internal to loader/, used by ReadAheadPlanner and the memory
// budget): how many bytes it holds, and which positions of an epoch's order it fetches a sample
// a GET rather than grouped with their storage neighbours.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "feedrate/dataset.h"
#include "feedrate/options.h"

namespace feedrate {

// The read-ahead's window for `options`, which the memory budget counts: 64 MB (64 requests of
// 1 MB in flight, about 600 ImageNet JPEGs), and under shuffle=blocks at least a whole shuffle
// window, whose first batch draws on every block of it.
std::uint64_t read_ahead_bytes(const LoaderOptions& options);

// The positions [0, end) and [from, epoch_end) go a sample a GET.
struct AlonePositions {
  std::size_t end = 0;
  std::size_t from = 0;
};
// For an order (this epoch's samples, its first `epoch_end`, then any read ahead into the next
// epoch's) that scatters storage runs over the window (shuffle=blocks): the first
// `window_bytes` of the epoch when it starts afresh (`fresh`), and its last `window_bytes` when
// the order holds nothing after them; each at least one sample. Otherwise none.
AlonePositions alone_positions(const Dataset& dataset, std::span<const std::uint32_t> order,
                               std::size_t epoch_end, std::uint64_t window_bytes, bool fresh,
                               bool scattered);

}  // namespace feedrate
