#include "io/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace feedrate::io {

// Values below 2^kSubBits have a bucket each; above, a value with its top bit at position b
// falls in row b - kSubBits + 1, column given by the kSubBits bits below the top one.
std::size_t LatencyHistogram::bucket_of(std::uint64_t ns) {
  constexpr std::uint64_t kLinear = std::uint64_t{1} << kSubBits;
  if (ns < kLinear) return static_cast<std::size_t>(ns);
  const int top = std::min(static_cast<int>(std::bit_width(ns)) - 1, kMaxBits);
  const std::uint64_t column = (ns >> (top - kSubBits)) & (kLinear - 1);
  return std::min(static_cast<std::size_t>(((top - kSubBits + 1) << kSubBits) + column),
                  kBuckets - 1);
}

std::uint64_t LatencyHistogram::bucket_middle(std::size_t bucket) {
  constexpr std::size_t kLinear = std::size_t{1} << kSubBits;
  if (bucket < kLinear) return bucket;
  const int top = static_cast<int>(bucket >> kSubBits) + kSubBits - 1;
  const std::uint64_t width = std::uint64_t{1} << (top - kSubBits);
  const std::uint64_t lower = (kLinear + (bucket & (kLinear - 1))) * width;
  return lower + width / 2;
}

void LatencyHistogram::record(std::chrono::nanoseconds latency) {
  const auto ns = static_cast<std::uint64_t>(std::max<std::int64_t>(latency.count(), 0));
  ++counts_[bucket_of(ns)];
  ++count_;
}

std::chrono::nanoseconds LatencyHistogram::percentile(double fraction) const {
  if (count_ == 0) return std::chrono::nanoseconds::zero();
  const auto rank = std::clamp<std::uint64_t>(
      static_cast<std::uint64_t>(std::ceil(fraction * static_cast<double>(count_))), 1, count_);
  std::uint64_t seen = 0;
  std::size_t bucket = 0;
  while (seen + counts_[bucket] < rank) seen += counts_[bucket++];
  return std::chrono::nanoseconds(bucket_middle(bucket));
}

}  // namespace feedrate::io
