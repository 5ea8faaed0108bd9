#include "feedrate/run_costs.h"

#include <cmath>

#include "feedrate/report.h"
#include "loader/diagnosis/capacity.h"

namespace feedrate {

RunCosts run_costs(const Report& r) {
  const RunSetting& run = r.run;
  RunCosts costs;
  costs.image = image_costs(r);
  costs.images_per_s = r.images_per_s;
  costs.num_workers = run.num_workers;
  costs.cpus = run.cpus;
  const Capacity& io = r.capacities.of(Resource::kIo);
  if (io.measured && std::isfinite(io.images_per_s)) costs.disk_images_per_s = io.images_per_s;
  costs.h2d_bytes_per_image = 3.0 * run.image_size * run.image_size;
  costs.dataset_bytes = run.dataset_bytes;
  costs.dataset_samples = run.dataset_samples;
  costs.peak_rss_mb = static_cast<double>(r.figures.peak_rss_bytes) / 1e6;
  costs.batch_size = run.batch_size;
  costs.prefetch = run.slots;
  costs.throttle = run.throttle;
  costs.format = run.format;
  costs.shuffle = run.shuffle;
  costs.shuffle_window_mb = run.shuffle_window_mb;
  costs.tar_chunk_bytes = run.chunk_bytes;
  return costs;
}

}  // namespace feedrate
