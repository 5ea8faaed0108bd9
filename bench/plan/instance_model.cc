#include "bench/plan/instance_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "io/disk_class.h"
#include "io/throttle.h"
#include "loader/diagnosis/throughput_model.h"

namespace feedrate::bench {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double loader_ram_gb(const RunCosts& costs, const Demand& demand) {
  return costs.peak_rss_mb / 1e3 * std::max(1, demand.gpus);
}

// The smaller rate, and the resource that set it (ties go to the first).
void bind(double rate, Resource resource, double& best, Resource& binding) {
  if (rate < best) {
    best = rate;
    binding = resource;
  }
}

}  // namespace

Instance parse_instance(const std::string& text) {
  const auto first = text.find(',');
  const auto second = first == std::string::npos ? first : text.find(',', first + 1);
  if (second == std::string::npos) {
    throw std::invalid_argument("instance \"" + text + "\": expected cores,ram_gb,disk_class");
  }
  Instance instance;
  instance.label = text;
  try {
    std::size_t used = 0;
    instance.cores = std::stoi(text.substr(0, first), &used);
    if (used != first) throw std::invalid_argument("cores");
    instance.ram_gb = std::stod(text.substr(first + 1, second - first - 1), &used);
    if (used != second - first - 1) throw std::invalid_argument("ram");
  } catch (const std::exception&) {
    throw std::invalid_argument("instance \"" + text + "\": cores and ram_gb must be numbers");
  }
  if (instance.cores < 1 || !(instance.ram_gb > 0) || !std::isfinite(instance.ram_gb)) {
    throw std::invalid_argument("instance \"" + text + "\": needs >= 1 core and RAM > 0 GB");
  }
  instance.disk = text.substr(second + 1);
  try {
    instance.disk_spec = io::parse_throttle(instance.disk);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("instance \"" + text + "\": " + e.what());
  }
  return instance;
}

double disk_images_per_s(const RunCosts& costs, const io::ThrottleSpec& disk) {
  return feedrate::disk_images_per_s(costs.image, costs.setting.queue_depth, disk);
}

Requirements requirements(const RunCosts& costs, const Demand& demand) {
  Requirements r;
  r.images_per_s = kBusyTarget * demand.images_per_s;
  r.cores = static_cast<int>(std::ceil(r.images_per_s * costs.image.cpu_ms_per_image / 1e3 - 1e-9));
  r.cores = std::max(1, r.cores);
  r.loader_ram_gb = loader_ram_gb(costs, demand);
  r.ram_gb = std::max(r.loader_ram_gb, demand.gpu_memory_gb);
  r.ram_cached_gb =
      std::max(r.loader_ram_gb + costs.setting.dataset_bytes / 1e9, demand.gpu_memory_gb);
  r.disk_mb_per_s = r.images_per_s * costs.image.bytes_per_image / 1e6;
  r.disk_iops = r.images_per_s * costs.image.reads_per_image;
  for (const io::DiskClass& c : io::disk_classes()) {
    if (disk_images_per_s(costs, c.spec) >= r.images_per_s) {
      r.disk_class = c.name;
      break;
    }
  }
  r.h2d_mb_per_s_per_gpu =
      demand.images_per_s / std::max(1, demand.gpus) * costs.h2d_bytes_per_image / 1e6;
  return r;
}

Projection project(const RunCosts& costs, const Demand& demand, const Instance& instance) {
  Projection p;
  const bool as_run = instance.runs_as_measured;
  const int threads = as_run ? std::max(1, costs.setting.num_workers) : instance.cores;
  ImageCosts image = costs.image;
  if (!as_run) image.cpu_share = 1;
  p.cpu_images_per_s = cpu_images_per_s(image, threads, instance.cores);
  p.disk_images_per_s = disk_images_per_s(costs, instance.disk_spec);
  if (as_run && costs.disk_images_per_s > 0) {
    p.disk_images_per_s = std::min(p.disk_images_per_s, costs.disk_images_per_s);
  }
  const double loaders = loader_ram_gb(costs, demand);
  p.ram_enough = instance.ram_gb >= loaders;
  p.dataset_cached = instance.ram_gb >= loaders + costs.setting.dataset_bytes / 1e9;
  p.ram_below_gpu = demand.gpu_memory_gb > 0 && instance.ram_gb < demand.gpu_memory_gb;
  const double demanded = demand.images_per_s > 0 ? demand.images_per_s : kInfinity;

  double first = demanded;
  p.first_epoch_binding = Resource::kConsumer;
  bind(p.cpu_images_per_s, Resource::kCpu, first, p.first_epoch_binding);
  bind(p.disk_images_per_s, Resource::kIo, first, p.first_epoch_binding);
  double later = demanded;
  p.binding = Resource::kConsumer;
  bind(p.cpu_images_per_s, Resource::kCpu, later, p.binding);
  if (!p.dataset_cached) bind(p.disk_images_per_s, Resource::kIo, later, p.binding);
  if (!p.ram_enough) {
    first = later = 0;
    p.binding = p.first_epoch_binding = Resource::kRam;
  }
  p.first_epoch_images_per_s = first;
  p.later_epochs_images_per_s = later;
  p.gpu_busy = demand.images_per_s > 0 ? std::min(1.0, later / demand.images_per_s) : 0;
  return p;
}

std::vector<ShuffleProjection> shuffle_projections(const RunCosts& costs, const Demand& demand,
                                                   const Instance& instance) {
  const CostSetting& run = costs.setting;
  const bool shards = run.shards();
  const ShuffleMode ran = parse_shuffle(run.shuffle);
  ReadLayout layout;
  layout.sample_bytes = run.dataset_samples > 0 ? static_cast<double>(run.dataset_bytes) /
                                                      static_cast<double>(run.dataset_samples)
                                                : 0;
  layout.block_bytes = static_cast<double>(run.chunk_bytes);
  std::vector<ShuffleProjection> modes;
  for (const ShuffleMode mode : {ShuffleMode::kFull, ShuffleMode::kBlocks}) {
    if (mode == ShuffleMode::kBlocks && (run.format.empty() || layout.block_bytes <= 0)) break;
    ShuffleProjection p;
    p.mode = shuffle_name(mode);
    p.needs_shards = mode == ShuffleMode::kBlocks && !shards;
    // Outside tar shards every order reads one file per sample, as a full shuffle does.
    const ShuffleMode read_as = shards ? ran : ShuffleMode::kFull;
    p.measured = shards ? (mode == ShuffleMode::kFull) == (ran == ShuffleMode::kFull)
                        : mode == ShuffleMode::kFull;
    p.costs = costs;
    p.costs.image = costs_under_shuffle(costs.image, read_as, mode, layout);
    // What the run's disk delivered holds for the reads it made, not another mode's.
    if (!p.measured) p.costs.disk_images_per_s = 0;
    const ImageCosts& image = p.costs.image;
    p.bytes_per_read = image.reads_per_image > 0 ? image.bytes_per_image / image.reads_per_image
                                                 : image.bytes_per_image;
    p.needs = requirements(p.costs, demand);
    p.projection = project(p.costs, demand, instance);
    modes.push_back(std::move(p));
  }
  return modes;
}

RunCosts packed_run_costs(const RunCosts& costs) {
  if (!costs.packed.measured()) return costs;
  const double bytes_ratio = costs.packed.bytes_ratio();
  RunCosts packed = costs;
  packed.image = packed_costs(costs.image, costs.packed.decode_ratio(), bytes_ratio);
  packed.setting.dataset_bytes =
      static_cast<std::uint64_t>(static_cast<double>(costs.setting.dataset_bytes) * bytes_ratio);
  return packed;
}

}  // namespace feedrate::bench
