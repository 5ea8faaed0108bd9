#include "loader/diagnosis/measured.h"

#include <algorithm>
#include <utility>

#include "loader/diagnosis/capacity.h"

namespace feedrate {

Measured::Measured(const Report& r)
    : report(r),
      capacities(r.capacities),
      delivered(r.capacities.delivered),
      costs(image_costs(r)),
      read_mb_s(static_cast<double>(r.figures.bytes_read) / 1e6 / r.wall_s),
      reads_per_s(static_cast<double>(r.figures.read_operations) / r.wall_s),
      bytes_per_read(r.figures.read_operations > 0
                         ? static_cast<double>(r.figures.bytes_read) /
                               static_cast<double>(r.figures.read_operations)
                         : costs.bytes_per_image),
      threads(std::max(1, r.run.num_workers)),
      cores(std::max(1, r.run.cpus)),
      disk(emulated_disk(r.run)) {}

double Measured::lifted(Resource resource, double capacity) const {
  return feedrate::lifted(capacities, resource, capacity);
}

Advice make_finding(const char* kind, std::string cause) {
  Advice a;
  a.kind = kind;
  a.cause = std::move(cause);
  return a;
}

Advice make_remedy(const char* kind, std::string what, double projected, std::string cost,
                   std::string cause) {
  Advice a;
  a.kind = kind;
  a.cause = std::move(cause);
  a.remedy = std::move(what);
  a.projected_images_per_s = projected;
  a.cost = std::move(cost);
  return a;
}

Advice make_remedy(const char* kind, std::string what, std::vector<OptionSetting> settings,
                   double projected, std::string cost) {
  Advice a = make_remedy(kind, std::move(what), projected, std::move(cost));
  a.settings = std::move(settings);
  return a;
}

}  // namespace feedrate
