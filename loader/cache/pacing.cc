#include "loader/cache/pacing.h"

#include <algorithm>

namespace feedrate {

double allowed_transcodes_per_s(const Headroom& h) {
  if (!(h.delivered_images_per_s > 0) || !(h.cpu_images_per_s > 0) ||
      !(h.decode_cpu_s_per_image > 0) || !(h.transcode_cpu_s_per_image > 0)) {
    return 0;
  }
  const double spare_images_per_s =
      std::max(kPacingLossBudget * h.delivered_images_per_s,
               (1 - kPacingMargin) * h.cpu_images_per_s - h.delivered_images_per_s);
  return spare_images_per_s * h.decode_cpu_s_per_image / h.transcode_cpu_s_per_image;
}

Headroom headroom_between(const PacingCounters& before, const PacingCounters& after,
                          double transcode_cpu_s_per_image) {
  Headroom h;
  h.transcode_cpu_s_per_image = transcode_cpu_s_per_image;
  const double wall_s = after.wall_s - before.wall_s;
  const double busy_s = after.decode_busy_s - before.decode_busy_s;
  if (!(wall_s > 0) || after.delivered <= before.delivered || after.decoded <= before.decoded ||
      !(busy_s > 0)) {
    return h;
  }
  h.delivered_images_per_s = static_cast<double>(after.delivered - before.delivered) / wall_s;
  h.decode_cpu_s_per_image = busy_s / static_cast<double>(after.decoded - before.decoded);
  h.cpu_images_per_s = after.cpu_capacity_images_per_s > 0 ? after.cpu_capacity_images_per_s
                                                           : after.cores / h.decode_cpu_s_per_image;
  return h;
}

}  // namespace feedrate
