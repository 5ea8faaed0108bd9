#include "loader/pipeline/read_ahead_plan.h"

#include <algorithm>
#include <iterator>

namespace feedrate {
namespace {

// How many of the samples from `first` on fit in `bytes` (at least one, when there is one).
template <typename It>
std::size_t fitting(const Dataset& dataset, It first, It last, std::uint64_t bytes) {
  std::size_t count = 0;
  for (std::uint64_t sum = 0; first != last; ++first, ++count) {
    sum += dataset.sample(*first).size;
    if (count > 0 && sum > bytes) break;
  }
  return count;
}

}  // namespace

std::uint64_t read_ahead_bytes(const LoaderOptions& options) {
  const std::uint64_t least = std::uint64_t{64} << 20;
  if (options.shuffle != ShuffleMode::kBlocks) return least;
  return std::max<std::uint64_t>(least, std::uint64_t{options.shuffle_window_mb} << 20);
}

AlonePositions alone_positions(const Dataset& dataset, std::span<const std::uint32_t> order,
                               std::size_t epoch_end, std::uint64_t window_bytes, bool fresh,
                               bool scattered) {
  AlonePositions alone{0, epoch_end};
  if (!scattered) return alone;
  const auto epoch = order.begin() + static_cast<std::ptrdiff_t>(epoch_end);
  if (fresh) alone.end = fitting(dataset, order.begin(), epoch, window_bytes);
  if (epoch == order.end()) {
    alone.from -= fitting(dataset, std::make_reverse_iterator(epoch),
                          std::make_reverse_iterator(order.begin()), window_bytes);
  }
  return alone;
}

}  // namespace feedrate
