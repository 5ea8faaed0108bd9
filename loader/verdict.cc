#include "loader/verdict.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace feedrate {
namespace {

template <typename... Args>
std::string format(const char* pattern, Args... args) {
  char text[512];
  std::snprintf(text, sizeof(text), pattern, args...);
  return text;
}

// "2,500" style thousands separators for rates, as people read them.
std::string thousands(double value) {
  std::string digits = std::to_string(static_cast<long long>(std::llround(value)));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

const char* disk_class(double mb_per_s) {
  if (mb_per_s <= 200) return "an HDD (~200 MB/s) may do for packed shards read sequentially";
  if (mb_per_s <= 500) return "a SATA SSD (>= 500 MB/s)";
  if (mb_per_s <= 2400) return "an NVMe SSD (>= 2400 MB/s)";
  return "several NVMe SSDs in parallel";
}

}  // namespace

std::string seek_bound_advice(const VerdictInputs& in) {
  if (!in.tar_shards || in.shuffle_blocks || in.block_bytes == 0 || in.disk_iops <= 0 ||
      in.read_operations == 0 || in.images == 0 || in.wall_s <= 0) {
    return {};
  }
  // Near the limit, and each read far from the bytes a read costs in seek time at full speed.
  constexpr double kNearLimit = 0.7;
  constexpr double kSmallRead = 512e3;
  const double reads_per_s = static_cast<double>(in.read_operations) / in.wall_s;
  const double bytes_per_read =
      static_cast<double>(in.bytes_read) / static_cast<double>(in.read_operations);
  if (reads_per_s < kNearLimit * in.disk_iops || bytes_per_read > kSmallRead) return {};
  const double bytes_per_image =
      static_cast<double>(in.bytes_read) / static_cast<double>(in.images);
  const double block_bytes = static_cast<double>(in.block_bytes);
  const double block_s =
      1 / in.disk_iops + (in.disk_mb_per_s > 0 ? block_bytes / (in.disk_mb_per_s * 1e6) : 0);
  double projected = block_bytes / bytes_per_image / block_s;
  const double decode_s = in.decode_busy_s / static_cast<double>(in.images);
  if (decode_s > 0) projected = std::min(projected, std::max(1, in.num_workers) / decode_s);
  return format(
      "the disk is seek-bound: %s reads/s of %.0f KB against its ~%s IOPS; shuffle=blocks "
      "(--shuffle blocks) reads whole blocks of %.0f MB in sequence: about %s images/s",
      thousands(reads_per_s).c_str(), bytes_per_read / 1e3, thousands(in.disk_iops).c_str(),
      block_bytes / 1e6, thousands(projected).c_str());
}

Verdict judge(const VerdictInputs& in) {
  Verdict v;
  v.stall_io_s = in.stall_io_s;
  v.stall_cpu_s = in.stall_cpu_s;
  v.stall_ram_s = in.stall_ram_s;
  v.stall_h2d_s = in.stall_h2d_s;
  const double stalled = in.stall_io_s + in.stall_cpu_s + in.stall_ram_s + in.stall_h2d_s;
  v.stall_fraction = in.wall_s > 0 ? stalled / in.wall_s : 0;
  if (in.images == 0 || in.wall_s <= 0) {
    v.advice.push_back("no images were delivered: nothing to judge yet");
    return v;
  }

  const double delivered = static_cast<double>(in.images) / in.wall_s;
  const double decode_s = in.decode_busy_s / static_cast<double>(in.images);
  const double bytes_per_image =
      static_cast<double>(in.bytes_read) / static_cast<double>(in.images);
  // The rate training asks for: given, or what the consumer would take if never kept waiting;
  // a consumer that hardly works between batches (a bare benchmark) says nothing about it.
  double demand = in.target_images_per_s;
  if (demand <= 0 && in.consumer_busy_s >= kMeasurableStepShare * in.wall_s) {
    demand = static_cast<double>(in.images) / in.consumer_busy_s;
  }
  const bool demand_known = demand > 0 && std::isfinite(demand);
  const double workers = std::max(1, in.num_workers);
  const double loader_capacity = decode_s > 0 ? workers / decode_s : 0;

  if (v.stall_fraction < kStallThreshold) {
    v.bottleneck = "consumer";
    v.advice.push_back(
        format("the loader keeps up: training took %s images/s and waited %.1f%% of the time",
               thousands(delivered).c_str(), 100 * v.stall_fraction));
    if (loader_capacity > 0) {
      v.advice.push_back(format(
          "decode needs %.2f ms of CPU per image: %d decode thread(s) could deliver about %s "
          "images/s",
          decode_s * 1e3, in.num_workers, thousands(loader_capacity).c_str()));
    }
    return v;
  }

  const std::array<std::pair<const char*, double>, 4> stalls = {{{"io", in.stall_io_s},
                                                                 {"cpu", in.stall_cpu_s},
                                                                 {"ram", in.stall_ram_s},
                                                                 {"h2d", in.stall_h2d_s}}};
  v.bottleneck = std::max_element(stalls.begin(), stalls.end(), [](auto& a, auto& b) {
                   return a.second < b.second;
                 })->first;
  const std::string target = demand_known ? thousands(demand) + " images/s" : "";

  if (v.bottleneck == "cpu") {
    if (demand_known) {
      const int cores = static_cast<int>(std::ceil(demand * decode_s));
      v.advice.push_back(
          format("decode needs %.2f ms of CPU per image: feeding %s takes about %d cores; this "
                 "machine has %d",
                 decode_s * 1e3, target.c_str(), cores, in.cpus));
    } else {
      v.advice.push_back(format(
          "decode needs %.2f ms of CPU per image: each decode thread adds at most %s images/s; "
          "this machine has %d cores",
          decode_s * 1e3, thousands(1 / decode_s).c_str(), in.cpus));
    }
    if (in.num_workers < in.cpus) {
      v.advice.push_back(
          format("raise num_workers from %d to %d, the cores available", in.num_workers, in.cpus));
    }
  } else if (v.bottleneck == "io") {
    const double read_mb_s = static_cast<double>(in.bytes_read) / 1e6 / in.wall_s;
    v.advice.push_back(
        format("reads delivered %.0f MB/s (%.0f KB per image)", read_mb_s, bytes_per_image / 1e3));
    if (demand_known) {
      const double needed = demand * bytes_per_image / 1e6;
      v.advice.push_back(
          format("feeding %s needs %.0f MB/s: %s", target.c_str(), needed, disk_class(needed)));
    }
    if (std::string seek = seek_bound_advice(in); !seek.empty()) v.advice.push_back(seek);
    const double dataset_gb = static_cast<double>(in.dataset_bytes) / 1e9;
    v.advice.push_back(format(
        "or keep the dataset in page cache: %.1f GB of RAM for it (this process may use %.1f "
        "GB)",
        dataset_gb, static_cast<double>(in.memory_bytes) / 1e9));
  } else if (v.bottleneck == "ram") {
    const double slot_mb = static_cast<double>(in.slot_bytes) / 1e6;
    v.advice.push_back(format(
        "only %zu batch(es) may be in flight (%.0f MB each): reads and decodes cannot overlap "
        "the training step",
        in.in_flight_capacity, slot_mb));
    v.advice.push_back(
        format("allow 2 more batches in flight (prefetch_batches=%zu, about %.0f MB more RAM)",
               in.in_flight_capacity + 2, 2 * slot_mb));
  } else {
    const double copy_gb_s =
        in.copy_busy_s > 0 ? static_cast<double>(in.copy_bytes) / 1e9 / in.copy_busy_s : 0;
    v.advice.push_back(format("copies to the GPU ran at %.2f GB/s", copy_gb_s));
    v.advice.push_back(
        "send uint8 over PCIe and convert on the GPU (layout float16/float32 on a CUDA device "
        "does), and check the GPU's PCIe link (nvidia-smi -q: Link Width and Generation)");
  }
  return v;
}

}  // namespace feedrate
