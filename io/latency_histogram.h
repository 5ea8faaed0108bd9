// A fixed-size histogram of operation latencies with logarithmic buckets (8 per power of two,
// so a percentile is within about 6% of the true value), for p50/p99 without storing samples or
// allocating per operation. Thread-safety: none; owned by one Reader.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace feedrate::io {

class LatencyHistogram {
 public:
  void record(std::chrono::nanoseconds latency);
  std::uint64_t count() const { return count_; }
  // The latency that `fraction` (in (0, 1]) of the recorded ones do not exceed, as the middle of
  // its bucket; zero when nothing was recorded.
  std::chrono::nanoseconds percentile(double fraction) const;

 private:
  static constexpr int kSubBits = 3;   // 2^3 buckets per power of two
  static constexpr int kMaxBits = 40;  // up to 2^40 ns (18 minutes); longer ones share the top
  static constexpr std::size_t kBuckets = (kMaxBits - kSubBits + 2) << kSubBits;

  static std::size_t bucket_of(std::uint64_t ns);
  static std::uint64_t bucket_middle(std::size_t bucket);

  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t count_ = 0;
};

}  // namespace feedrate::io
