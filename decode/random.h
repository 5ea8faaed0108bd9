// Per-sample random numbers. Every sample gets its own generator seeded from (seed, epoch,
// sample index), so augmentation parameters never depend on which thread decodes the sample or
// when. Thread-safety: a Rng is a value; use one per sample.
#pragma once

#include <cstdint>

namespace feedrate::decode {

// SplitMix64 finaliser: a good 64-bit mixing function for deriving independent seeds.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr std::uint64_t sample_seed(std::uint64_t seed, std::uint64_t epoch, std::uint64_t sample) {
  return mix64(mix64(mix64(seed) ^ epoch) ^ sample);
}

// xoshiro256** (Blackman and Vigna): fast, small state, good statistical quality.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& word : state_) {
      seed = mix64(seed);
      word = seed;
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Uniform integer in [0, bound) without modulo bias (Lemire's method); bound > 0.
  std::uint64_t below(std::uint64_t bound) {
    __extension__ using u128 = unsigned __int128;
    u128 m = static_cast<u128>(next()) * bound;
    auto low = static_cast<std::uint64_t>(m);
    if (low < bound) {
      const std::uint64_t threshold = -bound % bound;
      while (low < threshold) {
        m = static_cast<u128>(next()) * bound;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

}  // namespace feedrate::decode
