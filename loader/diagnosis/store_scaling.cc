#include "loader/diagnosis/store_scaling.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace feedrate {

std::optional<StoreScaling> store_scaling(const StoreFigures& store) {
  std::vector<StoreBand> bands;
  for (const StoreBand& band : store.by_in_flight) {
    if (band.busy_s >= kScalingBandShare * store.busy_s && band.bytes_per_s > 0 &&
        band.in_flight > 0) {
      bands.push_back(band);
    }
  }
  if (bands.empty()) return std::nullopt;
  const auto [low, high] = std::minmax_element(
      bands.begin(), bands.end(),
      [](const StoreBand& a, const StoreBand& b) { return a.in_flight < b.in_flight; });
  if (high->in_flight < kScalingSpread * low->in_flight) return std::nullopt;
  double weight = 0, mean_x = 0, mean_y = 0;
  for (const StoreBand& band : bands) {
    weight += band.busy_s;
    mean_x += band.busy_s * std::log(band.in_flight);
    mean_y += band.busy_s * std::log(band.bytes_per_s);
  }
  mean_x /= weight;
  mean_y /= weight;
  double sxy = 0, sxx = 0;
  for (const StoreBand& band : bands) {
    const double dx = std::log(band.in_flight) - mean_x;
    sxy += band.busy_s * dx * (std::log(band.bytes_per_s) - mean_y);
    sxx += band.busy_s * dx * dx;
  }
  StoreScaling scaling;
  scaling.low = *low;
  scaling.high = *high;
  scaling.slope = sxy / sxx;
  return scaling;
}

double projected_bytes_per_s(const StoreScaling& scaling, double in_flight) {
  return scaling.high.bytes_per_s *
         std::pow(in_flight / scaling.high.in_flight, scaling.elasticity());
}

}  // namespace feedrate
