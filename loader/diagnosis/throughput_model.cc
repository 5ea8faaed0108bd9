#include "loader/diagnosis/throughput_model.h"

#include <algorithm>
#include <limits>

namespace feedrate {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

double cpu_images_per_s(const ImageCosts& costs, double threads, double cores) {
  const double decode_ms =
      costs.decode_ms_per_image > 0 ? costs.decode_ms_per_image : costs.cpu_ms_per_image;
  double rate = kInfinity;
  if (decode_ms > 0) rate = std::min(rate, threads * 1e3 / decode_ms);
  if (costs.cpu_ms_per_image > 0) rate = std::min(rate, cores * 1e3 / costs.cpu_ms_per_image);
  return rate * std::clamp(costs.cpu_share, 1e-3, 1.0);
}

double cpu_images_per_s(const ImageCosts& costs, double cores) {
  return cpu_images_per_s(costs, cores, cores);
}

double disk_images_per_s(const ImageCosts& costs, unsigned queue_depth,
                         const io::ThrottleSpec& disk) {
  double rate = kInfinity;
  if (disk.mb_per_s > 0 && costs.bytes_per_image > 0) {
    rate = std::min(rate, disk.mb_per_s * 1e6 / costs.bytes_per_image);
  }
  const double reads = std::max(costs.reads_per_image, 1e-9);
  if (disk.iops > 0) rate = std::min(rate, disk.iops / reads);
  if (disk.latency_us > 0) {
    rate = std::min(rate, std::max(1u, queue_depth) / (disk.latency_us * 1e-6) / reads);
  }
  return rate;
}

ImageCosts costs_under_shuffle(const ImageCosts& measured, ShuffleMode ran, ShuffleMode mode,
                               const ReadLayout& layout) {
  ImageCosts costs = measured;
  if (mode == ShuffleMode::kFull) {
    if (ran == ShuffleMode::kFull) return costs;
    costs.reads_per_image = 1;
    if (layout.sample_bytes > 0) costs.bytes_per_image = layout.sample_bytes;
    return costs;
  }
  // blocks or none: whole blocks, where the storage has them.
  if (ran == mode || layout.block_bytes <= 0) return costs;
  costs.reads_per_image =
      std::min(measured.reads_per_image, measured.bytes_per_image / layout.block_bytes);
  return costs;
}

ImageCosts packed_costs(const ImageCosts& measured, double decode_ratio, double bytes_ratio) {
  ImageCosts costs = measured;
  if (decode_ratio > 0) {
    const double decode_ms =
        measured.decode_ms_per_image > 0 ? measured.decode_ms_per_image : measured.cpu_ms_per_image;
    costs.decode_ms_per_image = decode_ms * decode_ratio;
    costs.cpu_ms_per_image = measured.cpu_ms_per_image - decode_ms + costs.decode_ms_per_image;
  }
  if (bytes_ratio > 0) costs.bytes_per_image *= bytes_ratio;
  return costs;
}

}  // namespace feedrate
