// `feedrate doctor`: a quick probe of what this instance offers a training input pipeline —
// CPUs, memory and the container's limits, swap, the dataset's disk (measured), io_uring,
// /dev/shm and GPUs — with warnings in plain words. Text for people, --json for machines.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/cli/commands.h"
#include "bench/cli/default_dataset.h"
#include "gpu/device.h"
#include "io/block_device.h"
#include "io/disk_class.h"
#include "io/disk_probe.h"
#include "io/remote/url.h"
#include "io/uring_probe.h"
#include "loader/dataset/store_probe.h"
#include "loader/host/system_info.h"

namespace feedrate::bench {
namespace {

namespace fs = std::filesystem;

struct DoctorArgs {
  std::string dataset;
  double probe_seconds = 1.5;
  std::uint64_t probe_mb = 128;
  bool no_disk = false;
  bool json = false;
};

struct Findings {
  CpuInfo cpu;
  MemoryInfo memory;
  fs::path directory;
  io::BlockDevice device;
  std::optional<io::DiskProbe> disk;
  std::string disk_error;
  io::UringProbe uring;
  std::uint64_t shm_bytes = 0;
  bool cuda_built = false;
  std::vector<gpu::CudaDeviceInfo> gpus;
  std::optional<StoreProbe> store;  // a remote dataset's store (--dataset URL)
  std::string store_error;
  std::vector<std::string> warnings;
};

double gb(std::uint64_t bytes) {
  return bytes / 1e9;
}

std::string memlock_text(std::uint64_t bytes) {
  return bytes == UINT64_MAX ? "unlimited" : fmt::format("{} KiB", bytes >> 10);
}

// The folder to measure: the dataset's (its parent for a shard or list file), else the cache.
fs::path probe_directory(const std::string& dataset) {
  if (dataset.empty()) {
    const fs::path cache = cache_directory();
    fs::create_directories(cache);
    return cache;
  }
  const fs::path path(dataset);
  if (!fs::exists(path)) throw std::runtime_error(dataset + ": no such file or directory");
  return fs::is_directory(path) ? path : path.parent_path();
}

void add_warnings(Findings& f) {
  auto warn = [&](std::string text) { f.warnings.push_back(std::move(text)); };
  if (f.cpu.available < f.cpu.online) {
    warn(
        fmt::format("this process may use {} of the host's {} CPUs (cpuset or CPU quota): "
                    "num_workers above {} only adds memory",
                    f.cpu.available, f.cpu.online, f.cpu.available));
  }
  if (f.memory.cgroup_limit_bytes > 0) {
    warn(
        fmt::format("the container may use {:.1f} GB of the host's {:.1f} GB: a process that "
                    "passes the limit is killed, not slowed",
                    gb(f.memory.cgroup_limit_bytes), gb(f.memory.physical_bytes)));
  }
  std::uint64_t largest_gpu = 0;
  for (const gpu::CudaDeviceInfo& g : f.gpus)
    largest_gpu = std::max<std::uint64_t>(largest_gpu, g.memory_bytes);
  if (largest_gpu > f.memory.limit_bytes) {
    warn(
        fmt::format("RAM {:.0f} GB is smaller than the GPU memory {:.0f} GB: what the GPU needs "
                    "may be swapped out or the process killed",
                    gb(f.memory.limit_bytes), gb(largest_gpu)));
  }
  if (f.memory.swap_total_bytes > 0) {
    warn(
        fmt::format("swap is on ({:.1f} GB): memory pressure slows training down instead of "
                    "failing fast",
                    gb(f.memory.swap_total_bytes)));
  }
  if (!f.uring.available) {
    warn("io_uring is blocked (" + f.uring.error + "): using pread, one read at a time per thread");
  } else if (!f.uring.fixed_buffers) {
    warn(
        fmt::format("io_uring may not register fixed buffers (RLIMIT_MEMLOCK {}; {}): O_DIRECT "
                    "reads map their buffers on every read",
                    memlock_text(f.uring.memlock_limit_bytes), f.uring.fixed_buffers_error));
  }
  if (!f.disk_error.empty()) warn("the disk was not measured: " + f.disk_error);
  if (f.disk && !f.disk->direct) {
    warn("the file system of " + f.directory.string() +
         " refuses O_DIRECT: the disk figures are page-cache figures, and --direct reads buffered");
  }
  if (f.disk) {
    const io::DiskClass& match = io::match_disk_class(f.disk->sequential_mb_per_s);
    if (match.name == "hdd") {
      warn(
          fmt::format("the dataset's disk reads {:.0f} MB/s ({:.0f} random IOPS), HDD class: "
                      "pack the dataset into tar shards (read sequentially), or keep it in page "
                      "cache",
                      f.disk->sequential_mb_per_s, f.disk->random_iops));
    }
    if (f.device.rotational == 1 && match.name != "hdd") {
      warn(
          fmt::format("the kernel marks {} rotational, but it reads like a {} (virtual disks "
                      "often report rotational)",
                      f.device.device, match.label));
    }
  }
  if (f.shm_bytes > 0 && f.shm_bytes < (std::uint64_t{1} << 30)) {
    warn(
        fmt::format("/dev/shm holds only {:.0f} MB: PyTorch DataLoader workers pass batches "
                    "through it (feedrate does not need it)",
                    f.shm_bytes / 1e6));
  }
  if (!f.cuda_built) {
    warn("feedrate was built without CUDA: GPUs are not listed");
  } else if (f.gpus.empty()) {
    warn("no CUDA GPU is visible (no driver, or CUDA_VISIBLE_DEVICES hides them)");
  }
}

Findings examine(const DoctorArgs& args) {
  Findings f;
  f.cpu = cpu_info();
  f.memory = memory_info();
  const bool remote = io::is_url(args.dataset);
  f.directory = probe_directory(remote ? std::string() : args.dataset);
  if (remote) {
    try {
      StoreProbeOptions options;
      options.bytes = args.probe_mb << 20;
      f.store = probe_store(args.dataset, options);
    } catch (const std::exception& e) {
      f.store_error = e.what();
    }
  }
  f.device = io::block_device_of(f.directory);
  if (!args.no_disk) {
    try {
      io::DiskProbeOptions options;
      options.seconds_per_test = args.probe_seconds;
      options.file_bytes = args.probe_mb << 20;
      f.disk = io::probe_disk(f.directory, options);
    } catch (const std::exception& e) {
      f.disk_error = e.what();
    }
  }
  f.uring = io::probe_io_uring();
  f.shm_bytes = file_system_bytes("/dev/shm");
  f.cuda_built = gpu::cuda_built();
  f.gpus = gpu::cuda_devices();
  add_warnings(f);
  return f;
}

nlohmann::json to_json(const Findings& f) {
  nlohmann::json out;
  out["cpu"] = {{"model", f.cpu.model},
                {"online", f.cpu.online},
                {"affinity", f.cpu.affinity},
                {"quota_cores", f.cpu.quota_cores},
                {"available", f.cpu.available}};
  out["memory"] = {{"physical_bytes", f.memory.physical_bytes},
                   {"available_bytes", f.memory.available_bytes},
                   {"cgroup_version", f.memory.cgroup_version},
                   {"cgroup_limit_bytes", f.memory.cgroup_limit_bytes},
                   {"limit_bytes", f.memory.limit_bytes},
                   {"swap_total_bytes", f.memory.swap_total_bytes},
                   {"swap_free_bytes", f.memory.swap_free_bytes}};
  nlohmann::json disk = {{"directory", f.directory.string()},
                         {"mount_point", f.device.mount_point},
                         {"fs_type", f.device.fs_type},
                         {"source", f.device.source},
                         {"block_device", f.device.device},
                         {"rotational", f.device.rotational},
                         {"error", f.disk_error}};
  if (f.disk) {
    disk["o_direct"] = f.disk->direct;
    disk["backend"] = f.disk->backend;
    disk["sequential_mb_per_s"] = f.disk->sequential_mb_per_s;
    disk["random_4k_iops"] = f.disk->random_iops;
    disk["random_latency_p50_us"] = f.disk->random_latency_p50_us;
    disk["probe_seconds"] = f.disk->seconds;
    disk["class"] = io::match_disk_class(f.disk->sequential_mb_per_s).name;
  }
  out["disk"] = disk;
  out["io_uring"] = {{"available", f.uring.available},
                     {"error", f.uring.error},
                     {"fixed_buffers", f.uring.fixed_buffers},
                     {"fixed_buffers_error", f.uring.fixed_buffers_error},
                     {"memlock_limit_bytes", f.uring.memlock_limit_bytes}};
  if (f.store || !f.store_error.empty()) {
    nlohmann::json store = {{"url", f.store ? f.store->url : ""}, {"error", f.store_error}};
    if (f.store) {
      store["objects"] = f.store->objects;
      store["first_byte_p50_ms"] = f.store->first_byte_p50_ms;
      store["first_byte_p99_ms"] = f.store->first_byte_p99_ms;
      store["one_connection_mb_per_s"] = f.store->one_connection_mb_per_s;
      store["parallel_mb_per_s"] = f.store->parallel_mb_per_s;
      store["connections"] = f.store->connections;
    }
    out["store"] = store;
  }
  out["shm_bytes"] = f.shm_bytes;
  nlohmann::json gpus = nlohmann::json::array();
  for (const gpu::CudaDeviceInfo& g : f.gpus) {
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"memory_bytes", g.memory_bytes},
                    {"compute_capability", fmt::format("{}.{}", g.compute_major, g.compute_minor)},
                    {"pci_bus_id", g.pci_bus_id},
                    {"pcie_link", g.pcie_link}});
  }
  out["cuda_built"] = f.cuda_built;
  out["gpus"] = gpus;
  out["warnings"] = f.warnings;
  return out;
}

void print_text(const Findings& f) {
  fmt::print("cpu       {} — {} available ({} online, {} in the affinity mask{})\n",
             f.cpu.model.empty() ? "unknown model" : f.cpu.model, f.cpu.available, f.cpu.online,
             f.cpu.affinity,
             f.cpu.quota_cores > 0 ? fmt::format(", CPU quota {:.2f} cores", f.cpu.quota_cores)
                                   : std::string());
  fmt::print("memory    {:.1f} GB physical, {:.1f} GB available, limit {:.1f} GB ({})\n",
             gb(f.memory.physical_bytes), gb(f.memory.available_bytes), gb(f.memory.limit_bytes),
             f.memory.cgroup_limit_bytes > 0
                 ? fmt::format("cgroup v{} limit", f.memory.cgroup_version)
             : f.memory.cgroup_version > 0
                 ? fmt::format("cgroup v{}, no limit set", f.memory.cgroup_version)
                 : std::string("no cgroup memory controller"));
  fmt::print("swap      {}\n",
             f.memory.swap_total_bytes == 0
                 ? std::string("off")
                 : fmt::format("{:.1f} GB ({:.1f} GB free)", gb(f.memory.swap_total_bytes),
                               gb(f.memory.swap_free_bytes)));
  fmt::print("dataset   {} on {} ({}, {}), block device {}, rotational {}\n", f.directory.string(),
             f.device.mount_point, f.device.fs_type, f.device.source,
             f.device.device.empty() ? "none" : f.device.device,
             f.device.rotational < 0 ? "unknown"
             : f.device.rotational   ? "yes"
                                     : "no");
  if (f.disk) {
    fmt::print(
        "disk      {:.0f} MB/s sequential, {:.0f} random 4 KiB reads/s (p50 {:.0f} us), "
        "O_DIRECT {}, {} — {} class\n",
        f.disk->sequential_mb_per_s, f.disk->random_iops, f.disk->random_latency_p50_us,
        f.disk->direct ? "yes" : "refused", f.disk->backend,
        io::match_disk_class(f.disk->sequential_mb_per_s).label);
  } else {
    fmt::print("disk      not measured{}\n", f.disk_error.empty() ? "" : ": " + f.disk_error);
  }
  fmt::print("io_uring  {}, fixed buffers {}, RLIMIT_MEMLOCK {}\n",
             f.uring.available ? "available" : "blocked (" + f.uring.error + ")",
             f.uring.fixed_buffers ? "allowed" : "refused",
             memlock_text(f.uring.memlock_limit_bytes));
  if (f.store) {
    const StoreProbe& p = *f.store;
    fmt::print(
        "store     {}: first byte {:.0f} ms (p99 {:.0f} ms), one connection {:.1f} MB/s, {} "
        "connections {:.1f} MB/s ({:.1f}x)\n",
        p.url, p.first_byte_p50_ms, p.first_byte_p99_ms, p.one_connection_mb_per_s, p.connections,
        p.parallel_mb_per_s,
        p.one_connection_mb_per_s > 0 ? p.parallel_mb_per_s / p.one_connection_mb_per_s : 0.0);
  } else if (!f.store_error.empty()) {
    fmt::print("store     not measured: {}\n", f.store_error);
  }
  fmt::print("/dev/shm  {:.1f} GB\n", gb(f.shm_bytes));
  if (f.gpus.empty()) fmt::print("gpus      none{}\n", f.cuda_built ? "" : " (built without CUDA)");
  for (const gpu::CudaDeviceInfo& g : f.gpus) {
    fmt::print("gpu {}     {}, {:.1f} GB, compute {}.{}, PCIe {}\n", g.index, g.name,
               gb(g.memory_bytes), g.compute_major, g.compute_minor,
               g.pcie_link.empty() ? "link unknown" : g.pcie_link);
  }
  for (const std::string& w : f.warnings) fmt::print("warning   {}\n", w);
}

}  // namespace

Command add_doctor_command(CLI::App& app) {
  auto args = std::make_shared<DoctorArgs>();
  CLI::App* sub = app.add_subcommand(
      "doctor",
      "Probe this instance for training input: CPUs, memory limits, swap, the dataset's disk "
      "(measured), io_uring, /dev/shm and GPUs, with warnings");
  sub->add_option("--dataset", args->dataset,
                  "Dataset (or any folder) whose file system to measure (default: the cache "
                  "folder of the default dataset); a URL (s3://, https://) probes its store: "
                  "time to first byte, one connection's and 16 connections' bandwidth");
  sub->add_option("--probe-seconds", args->probe_seconds,
                  "Seconds for each disk measurement (sequential, random)")
      ->check(CLI::Range(0.05, 30.0))
      ->capture_default_str();
  sub->add_option("--probe-mb", args->probe_mb, "Size of the temporary file the disk is read from")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  sub->add_flag("--no-disk", args->no_disk, "Skip the disk measurement");
  sub->add_flag("--json", args->json, "Print one JSON object instead of text");
  return [args] {
    const Findings findings = examine(*args);
    if (args->json) {
      fmt::print("{}\n", to_json(findings).dump(2));
    } else {
      print_text(findings);
    }
    return 0;
  };
}

}  // namespace feedrate::bench
