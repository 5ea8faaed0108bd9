// Random numbers for the dataset generator (internal header): feedrate's own xoshiro256**
// (decode/random.h) with the two draws the generator needs. std:: engines and distributions
// are avoided on purpose: their output is not specified to be identical across standard
// libraries, and the generated datasets must be byte-identical for a given seed.
// Not thread-safe per object; use one generator per thread.
#pragma once

#include <cstdint>

#include "decode/random.h"

namespace feedrate::datagen {

using decode::mix64;

// Derives the seed of sub-stream `stream` of `seed` (e.g. image i of a dataset).
constexpr std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  return mix64(mix64(seed) ^ mix64(stream + 0x632be59bd9b4e019ULL));
}

class Rng : public decode::Rng {
 public:
  using decode::Rng::Rng;

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
};

}  // namespace feedrate::datagen
