// Small, fast, seedable pseudo-random generators used by the dataset generator (internal header).
// std:: engines and distributions are avoided on purpose: their output is not specified to be
// identical across standard libraries, and the generated datasets must be byte-identical for a
// given seed. Not thread-safe per object; use one generator per thread.
#pragma once

#include <cstdint>

namespace feedrate::datagen {

// SplitMix64 finaliser: turns any 64-bit value (a seed, a seed combined with an index) into a
// well-mixed one, so that nearby seeds give unrelated streams.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Derives the seed of sub-stream `stream` of `seed` (e.g. image i of a dataset).
constexpr std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  return mix64(mix64(seed) ^ mix64(stream + 0x632be59bd9b4e019ULL));
}

// xoshiro256** (Blackman & Vigna): the main generator; a handful of cycles per 64 bits.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& word : s_) {
      seed = mix64(seed);
      word = seed;
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [lo, hi] (inclusive). Uses the multiply-shift reduction: its bias is far
  // below anything visible in synthetic images and it needs no rejection loop.
  int uniform_int(int lo, int hi) {
    const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo + 1);
    return lo + static_cast<int>(((next() >> 32) * span) >> 32);
  }

  // Uniform float in [lo, hi), from the top 24 bits so that it is exact in a float.
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t s_[4];
};

}  // namespace feedrate::datagen
