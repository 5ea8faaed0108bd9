#include "loader/diagnosis/store_scaling.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace feedrate {

std::optional<StoreScaling> store_scaling(const StoreFigures& store) {
  std::vector<StoreBand> bands;
  for (const StoreBand& band : store.by_in_flight) {
    if (band.busy_s >= kScalingBandShare * store.busy_s && band.bytes_per_s > 0) {
      bands.push_back(band);
    }
  }
  if (bands.size() < 2) return std::nullopt;
  std::sort(bands.begin(), bands.end(),
            [](const StoreBand& a, const StoreBand& b) { return a.in_flight > b.in_flight; });
  const StoreBand& high = bands.front();
  const auto low = std::find_if(bands.begin() + 1, bands.end(), [&](const StoreBand& band) {
    return band.in_flight * kScalingSpread <= high.in_flight;
  });
  if (low == bands.end()) return std::nullopt;
  StoreScaling scaling;
  scaling.high = high;
  scaling.low = *low;
  const double e =
      std::log(high.bytes_per_s / low->bytes_per_s) / std::log(high.in_flight / low->in_flight);
  scaling.elasticity = std::clamp(e, 0.0, 1.0);
  return scaling;
}

double projected_bytes_per_s(const StoreScaling& scaling, double in_flight) {
  return scaling.high.bytes_per_s *
         std::pow(in_flight / scaling.high.in_flight, scaling.elasticity);
}

}  // namespace feedrate
