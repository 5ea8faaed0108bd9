#include "loader/throughput_model.h"

#include <algorithm>
#include <limits>

namespace feedrate {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

double cpu_images_per_s(const ImageCosts& costs, double cores) {
  return costs.cpu_ms_per_image > 0 ? cores * 1e3 / costs.cpu_ms_per_image : kInfinity;
}

double disk_images_per_s(const ImageCosts& costs, const io::ThrottleSpec& disk) {
  double rate = kInfinity;
  if (disk.mb_per_s > 0 && costs.bytes_per_image > 0) {
    rate = std::min(rate, disk.mb_per_s * 1e6 / costs.bytes_per_image);
  }
  const double reads = std::max(costs.reads_per_image, 1e-9);
  if (disk.iops > 0) rate = std::min(rate, disk.iops / reads);
  if (disk.latency_us > 0) {
    rate = std::min(rate, std::max(1u, costs.queue_depth) / (disk.latency_us * 1e-6) / reads);
  }
  return rate;
}

}  // namespace feedrate
