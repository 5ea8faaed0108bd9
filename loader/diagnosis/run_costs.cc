#include "feedrate/run_costs.h"

#include <cmath>

#include "feedrate/report.h"
#include "loader/diagnosis/capacity.h"

namespace feedrate {

RunCosts run_costs(const Report& r) {
  const RunSetting& run = r.run;
  RunCosts costs;
  costs.images_per_s = r.images_per_s;
  costs.setting = static_cast<const CostSetting&>(run);
  costs.image = image_costs(r);
  const Capacity& io = r.capacities.of(Resource::kIo);
  if (io.measured && std::isfinite(io.images_per_s)) costs.disk_images_per_s = io.images_per_s;
  costs.h2d_bytes_per_image = 3.0 * run.image_size * run.image_size;
  costs.peak_rss_mb = static_cast<double>(r.figures.peak_rss_bytes) / 1e6;
  return costs;
}

}  // namespace feedrate
