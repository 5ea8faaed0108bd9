// `feedrate plan RUN.json`: from the per-image costs a bench or tune run measured, and the
// GPUs to feed, what an instance needs (cores, RAM, disk class) to keep them >= 90% busy, which
// resource binds first, and how candidate instance shapes would do (bench/instance_model.h).
#include <fmt/core.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/commands.h"
#include "bench/gpu_catalogue.h"
#include "bench/instance_model.h"
#include "io/disk_class.h"
#include "loader/system_info.h"

namespace feedrate::bench {
namespace {

struct PlanArgs {
  std::string input;
  int gpus = 1;
  std::string gpu;
  double rate = 0;  // per GPU, measured by the user
  std::vector<std::string> instances;
  std::string disk;  // this machine's disk, for "binds first"; default: the run's throttle
  bool json = false;
};

struct Plan {
  std::string kind;  // "bench" or "tune"
  std::string dataset;
  RunCosts costs;
  Demand demand;
  std::string gpu_name;
  bool rate_measured = false;
  Requirements needs;
  Instance here;
  Projection here_projection;
  std::vector<std::pair<Instance, Projection>> candidates;
  std::vector<ShuffleProjection> modes;  // full and blocks on this machine
  double label_mix = 0;                  // of the run's order (bench runs); 0 when unknown
  // With the dataset packed (costs.packed measured).
  RunCosts packed;
  Requirements packed_needs;
  Projection packed_here;
};

nlohmann::json read_input(const std::string& path) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    file.open(path);
    if (!file) throw std::runtime_error(path + ": cannot open");
    in = &file;
  }
  try {
    return nlohmann::json::parse(*in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not JSON (" + e.what() + ")");
  }
}

std::string disk_text(const Instance& instance) {
  return instance.disk.empty() ? "not limited" : instance.disk;
}

std::string rate_text(double rate) {
  return std::isinf(rate) ? "unlimited" : fmt::format("{:.0f}", rate);
}

Plan make_plan(const PlanArgs& args) {
  Plan plan;
  const nlohmann::json input = read_input(args.input);
  if (!input.is_object() || !input.contains("costs")) {
    throw std::runtime_error(args.input +
                             ": no \"costs\" object; give the output of `feedrate bench --json` "
                             "or `feedrate tune --json`");
  }
  plan.kind = input.contains("mode") ? "tune" : "bench";
  plan.dataset = input.value("dataset", "");
  try {
    plan.costs = costs_from_json(input.at("costs"));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(args.input + ": " + e.what());
  }
  if (plan.costs.images_per_s <= 0 || plan.costs.cpu_ms_per_image <= 0) {
    throw std::runtime_error(args.input + ": the run measured no images");
  }
  plan.demand.gpus = args.gpus;
  double per_gpu = args.rate;
  plan.rate_measured = args.rate > 0;
  if (!args.gpu.empty()) {
    const GpuModel& gpu = find_gpu(args.gpu);
    plan.gpu_name = gpu.name;
    plan.demand.gpu_memory_gb = gpu.memory_gb;
    if (per_gpu <= 0) {
      if (gpu.fp32_tflops <= 0) {
        throw std::runtime_error(gpu.name + " has no FP32 figure in the catalogue: give --rate");
      }
      per_gpu = gpu.estimated_images_per_s();
    }
  }
  if (per_gpu <= 0) throw std::runtime_error("give --rate IMAGES_PER_S (per GPU) or --gpu NAME");
  plan.demand.images_per_s = per_gpu * args.gpus;
  plan.needs = requirements(plan.costs, plan.demand);
  // This machine, as the run saw it: its cores, its memory limit, its (emulated) disk.
  const std::string disk = args.disk.empty() ? plan.costs.throttle : args.disk;
  plan.here = parse_instance(fmt::format("{},{},{}", std::max(1, plan.costs.cpus),
                                         memory_limit_bytes() / 1e9, disk.empty() ? "0" : disk));
  plan.here.label = "this machine";
  plan.here.disk = disk;
  plan.here_projection = project(plan.costs, plan.demand, plan.here);
  plan.modes = shuffle_projections(plan.costs, plan.demand, plan.here);
  if (input.contains("shuffle") && input["shuffle"].is_object()) {
    const nlohmann::json& mix = input["shuffle"].value("label_mix", nlohmann::json());
    if (mix.is_number()) plan.label_mix = mix.get<double>();
  }
  plan.packed = packed_run_costs(plan.costs);
  plan.packed_needs = requirements(plan.packed, plan.demand);
  plan.packed_here = project(plan.packed, plan.demand, plan.here);
  for (const std::string& text : args.instances) {
    Instance instance = parse_instance(text);
    plan.candidates.emplace_back(instance, project(plan.costs, plan.demand, instance));
  }
  return plan;
}

nlohmann::json projection_json(const Instance& i, const Projection& p) {
  auto finite = [](double v) {
    return std::isinf(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
  };
  return {{"instance", i.label},
          {"cores", i.cores},
          {"ram_gb", i.ram_gb},
          {"disk", i.disk},
          {"cpu_images_per_s", finite(p.cpu_images_per_s)},
          {"disk_images_per_s", finite(p.disk_images_per_s)},
          {"first_epoch_images_per_s", finite(p.first_epoch_images_per_s)},
          {"later_epochs_images_per_s", finite(p.later_epochs_images_per_s)},
          {"first_epoch_binding", p.first_epoch_binding},
          {"binding", p.binding},
          {"gpu_busy", p.gpu_busy},
          {"meets_target", p.gpu_busy >= kBusyTarget},
          {"dataset_cached", p.dataset_cached},
          {"ram_enough", p.ram_enough},
          {"ram_below_gpu_memory", p.ram_below_gpu}};
}

// What packing the dataset would change: measured on a sample of its JPEGs by the run, projected
// here (bench/transcode_probe.h, loader/throughput_model.h's packed_costs()).
nlohmann::json packing_json(const Plan& plan) {
  const PackedDecodeCost& p = plan.costs.packed;
  nlohmann::json out = {{"state", p.state.empty() ? "not measured" : p.state},
                        {"reason", p.reason},
                        {"samples", p.samples}};
  if (!p.measured()) return out;
  out["original_ms"] = p.original_ms;
  out["packed_ms"] = p.packed_ms;
  out["decode_ratio"] = p.decode_ratio();
  out["bytes_ratio"] = p.bytes_ratio();
  out["cpu_ms_per_image"] = plan.packed.cpu_ms_per_image;
  out["cores"] = plan.packed_needs.cores;
  out["this_machine"] = projection_json(plan.here, plan.packed_here);
  out["lift"] =
      plan.packed_here.later_epochs_images_per_s / plan.here_projection.later_epochs_images_per_s;
  out["copy_gb"] = plan.packed.dataset_bytes / 1e9;
  return out;
}

void print_json(const Plan& plan) {
  nlohmann::json out;
  out["input"] = {{"kind", plan.kind}, {"dataset", plan.dataset}};
  out["measured"] = costs_json(plan.costs);
  out["demand"] = {{"gpus", plan.demand.gpus},
                   {"gpu", plan.gpu_name},
                   {"gpu_memory_gb", plan.demand.gpu_memory_gb},
                   {"images_per_s", plan.demand.images_per_s},
                   {"source", plan.rate_measured ? "measured (--rate)" : "estimated (catalogue)"}};
  const Requirements& n = plan.needs;
  out["requirements"] = {{"images_per_s", n.images_per_s},
                         {"cores", n.cores},
                         {"loader_ram_gb", n.loader_ram_gb},
                         {"ram_gb", n.ram_gb},
                         {"ram_cached_gb", n.ram_cached_gb},
                         {"disk_mb_per_s", n.disk_mb_per_s},
                         {"disk_iops", n.disk_iops},
                         {"disk_class", n.disk_class},
                         {"h2d_mb_per_s_per_gpu", n.h2d_mb_per_s_per_gpu}};
  out["this_machine"] = projection_json(plan.here, plan.here_projection);
  out["binds_first"] = plan.here_projection.binding;
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& [instance, projection] : plan.candidates) {
    candidates.push_back(projection_json(instance, projection));
  }
  out["instances"] = candidates;
  nlohmann::json modes = nlohmann::json::array();
  for (const ShuffleProjection& m : plan.modes) {
    nlohmann::json mode = {{"mode", m.mode},
                           {"reads", m.measured ? "measured" : "projected"},
                           {"needs_tar_shards", m.needs_shards},
                           {"reads_per_image", m.costs.reads_per_image},
                           {"bytes_per_read", m.bytes_per_read},
                           {"requirements",
                            {{"disk_mb_per_s", m.needs.disk_mb_per_s},
                             {"disk_iops", m.needs.disk_iops},
                             {"disk_class", m.needs.disk_class}}},
                           {"this_machine", projection_json(plan.here, m.projection)}};
    if (m.mode == plan.costs.shuffle && plan.label_mix > 0) mode["label_mix"] = plan.label_mix;
    modes.push_back(mode);
  }
  out["shuffle_modes"] = modes;
  out["packing"] = packing_json(plan);
  out["figures"] = {
      {"measured", "measured: every field of \"measured\" (the input run)"},
      {"estimated", plan.rate_measured ? "projected: requirements, this_machine, instances"
                                       : "estimated: demand (catalogue); projected: "
                                         "requirements, this_machine, instances"}};
  fmt::print("{}\n", out.dump(2));
}

// "an HDD or faster", "a SATA SSD or faster", from the class's label (io/disk_class.h).
std::string disk_class_text(const Requirements& n) {
  for (const io::DiskClass& c : io::disk_classes()) {
    if (c.name != n.disk_class) continue;
    const char* article = c.label.starts_with("SATA")      ? "a "
                          : c.label.starts_with("network") ? ""
                                                           : "an ";
    return article + c.label + " or faster";
  }
  return "more than one NVMe SSD";
}

// "99 KB", "4.1 MB"
std::string bytes_text(double bytes) {
  return bytes < 1e6 ? fmt::format("{:.0f} KB", bytes / 1e3)
                     : fmt::format("{:.1f} MB", bytes / 1e6);
}

void print_shuffle_modes(const Plan& plan) {
  if (plan.modes.empty()) return;
  fmt::print(
      "\nshuffle [projected]: for each order, the first epoch on this machine (disk {}; every "
      "epoch when the dataset is not in page cache) and the disk the demand needs:\n",
      disk_text(plan.here));
  for (const ShuffleProjection& m : plan.modes) {
    std::string note;
    if (m.needs_shards)
      note = "; in tar shards first (`feedrate pack`), as folders read a file per sample";
    if (m.mode == "blocks") {
      note += m.mode == plan.costs.shuffle && plan.label_mix > 0
                  ? fmt::format("; batches held {:.0f}% of a full shuffle's labels in this run",
                                100 * plan.label_mix)
                  : "; a less random order (`bench --shuffle blocks` measures its mix)";
    }
    fmt::print(
        "  {:<6} [{}] {:.3f} reads per image of {}: {} images/s here ({} binds); needs "
        "{:.0f} MB/s and {:.0f} reads/s: {}{}\n",
        m.mode, m.measured ? "measured reads" : "projected reads", m.costs.reads_per_image,
        bytes_text(m.bytes_per_read), rate_text(m.projection.first_epoch_images_per_s),
        m.projection.first_epoch_binding, m.needs.disk_mb_per_s, m.needs.disk_iops,
        disk_class_text(m.needs), note);
  }
}

void print_packing(const Plan& plan) {
  const PackedDecodeCost& p = plan.costs.packed;
  if (p.state == "packed") {
    fmt::print(
        "\npacking [measured]: the dataset is packed already ({}): the costs above are "
        "a packed dataset's\n",
        p.reason);
    return;
  }
  if (!p.measured()) {
    fmt::print("\npacking: not measured ({})\n",
               p.state.empty() ? "the run recorded no packed decode cost; `feedrate bench` "
                                 "measures it on JPEG data"
                               : p.reason);
    return;
  }
  const double lift =
      plan.packed_here.later_epochs_images_per_s / plan.here_projection.later_epochs_images_per_s;
  fmt::print(
      "\npacking [measured]: {} of the dataset's JPEGs packed in memory decode a train crop in "
      "{:.2f} ms of CPU instead of {:.2f} on one thread ({:.2f}x), in {:.2f}x the bytes\n",
      p.samples, p.packed_ms, p.original_ms, p.decode_ratio(), p.bytes_ratio());
  fmt::print(
      "  packed [projected]: {:.2f} ms CPU per image; {} images/s on this machine ({} binds), "
      "{:.2f}x now; {} cores for the demand instead of {}\n",
      plan.packed.cpu_ms_per_image, rate_text(plan.packed_here.later_epochs_images_per_s),
      plan.packed_here.binding, lift, plan.packed_needs.cores, plan.needs.cores);
  fmt::print(
      "  {}; costs: a copy of the dataset, {:.2f} GB ({:.2f}x its bytes)\n",
      plan.here_projection.binding == "cpu"
          ? fmt::format("`feedrate pack DATASET OUT` lifts this CPU-bound machine {:.2f}x", lift)
          : fmt::format("packing does not lift this machine much: {} binds, not the CPU",
                        plan.here_projection.binding),
      plan.packed.dataset_bytes / 1e9, p.bytes_ratio());
}

void print_text(const Plan& plan) {
  const RunCosts& c = plan.costs;
  fmt::print("input     [measured] {} run{}: {} worker(s) on {} CPU(s), {:.1f} images/s{}\n",
             plan.kind, plan.dataset.empty() ? "" : " of " + plan.dataset, c.num_workers, c.cpus,
             c.images_per_s, c.throttle.empty() ? "" : ", disk throttled to " + c.throttle);
  fmt::print(
      "costs     [measured] {:.2f} ms CPU per image, {:.1f} KB and {:.2f} reads per image, "
      "{:.1f} KB to the GPU per image, loader peak RSS {:.0f} MB, dataset {:.2f} GB ({} "
      "samples)\n",
      c.cpu_ms_per_image, c.bytes_per_image / 1e3, c.reads_per_image, c.h2d_bytes_per_image / 1e3,
      c.peak_rss_mb, c.dataset_bytes / 1e9, c.dataset_samples);
  fmt::print("demand    [{}] {} x {} at {:.0f} images/s = {:.0f} images/s{}\n",
             plan.rate_measured ? "measured" : "estimated", plan.demand.gpus,
             plan.gpu_name.empty() ? "GPU" : plan.gpu_name,
             plan.demand.images_per_s / plan.demand.gpus, plan.demand.images_per_s,
             plan.rate_measured ? " (--rate)"
                                : fmt::format(" ({:.0f} images/s per FP32 TFLOPS; pass --rate "
                                              "with your measured step)",
                                              kImagesPerFp32Tflop));
  const Requirements& n = plan.needs;
  fmt::print("\nTo keep the GPUs >= {:.0f}% busy ({:.0f} images/s) [projected]:\n",
             100 * kBusyTarget, n.images_per_s);
  fmt::print("  cores   {} (decode alone; the training loop needs its own)\n", n.cores);
  fmt::print(
      "  RAM     >= {:.1f} GB ({:.2f} GB of loaders{}); >= {:.1f} GB to keep the dataset "
      "in page cache across epochs\n",
      n.ram_gb, n.loader_ram_gb,
      plan.demand.gpu_memory_gb > 0
          ? fmt::format(", at least one GPU's {:.0f} GB", plan.demand.gpu_memory_gb)
          : "",
      n.ram_cached_gb);
  fmt::print(
      "  disk    {:.0f} MB/s and {:.0f} reads/s (the first epoch; every epoch without the "
      "cache): {}\n",
      n.disk_mb_per_s, n.disk_iops,
      n.disk_class.empty() ? "more than one NVMe SSD (RAID or several volumes)"
                           : disk_class_text(n));
  fmt::print("  PCIe    {:.0f} MB/s to each GPU\n", n.h2d_mb_per_s_per_gpu);
  const Projection& h = plan.here_projection;
  fmt::print(
      "\nbinds first [projected]: {} — this machine ({} cores, {:.0f} GB, disk {}) would "
      "deliver {:.0f} images/s ({:.0f}% of the GPUs)\n",
      h.binding, plan.here.cores, plan.here.ram_gb, disk_text(plan.here),
      h.later_epochs_images_per_s, 100 * h.gpu_busy);
  print_shuffle_modes(plan);
  print_packing(plan);
  if (plan.candidates.empty()) return;
  fmt::print("\n{:<22} {:>5} {:>7} {:<14} {:>9} {:>9} {:>9} {:>9} {:>6} {:<5} {}\n", "instance",
             "cores", "RAM GB", "disk", "cpu", "disk", "1st ep.", "later", "GPUs", "binds",
             "[projected images/s]");
  for (const auto& [i, p] : plan.candidates) {
    std::string notes = p.gpu_busy >= kBusyTarget ? "ok" : "short";
    if (!p.ram_enough) notes += ", RAM below the loaders' peak: killed";
    if (p.ram_below_gpu) notes += ", RAM below the GPU memory";
    if (!p.dataset_cached && p.ram_enough) notes += ", dataset not cached";
    fmt::print("{:<22} {:>5} {:>7.0f} {:<14} {:>9} {:>9} {:>9} {:>9} {:>5.0f}% {:<5} {}\n", i.label,
               i.cores, i.ram_gb, disk_text(i), rate_text(p.cpu_images_per_s),
               rate_text(p.disk_images_per_s), rate_text(p.first_epoch_images_per_s),
               rate_text(p.later_epochs_images_per_s), 100 * p.gpu_busy, p.binding, notes);
  }
}

}  // namespace

Command add_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* sub = app.add_subcommand(
      "plan",
      "From a bench or tune run's --json, the cores, RAM and disk an instance needs to keep N "
      "GPUs >= 90% busy, and how candidate instances would do");
  sub->add_option("RUN", args->input,
                  "JSON of `feedrate bench --json` or `tune --json` (- for stdin)")
      ->required();
  sub->add_option("--gpus", args->gpus, "GPUs to feed")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub->add_option("--gpu", args->gpu,
                  "GPU model from DOMAIN.md's catalogue (memory, and an estimated images/s)");
  sub->add_option("--rate", args->rate,
                  "Training images/s of one GPU, measured (preferred over the catalogue estimate)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--instance", args->instances,
                  "Candidate instance cores,ram_gb,disk (disk: hdd, network, sata-ssd, nvme or "
                  "MBPS[,IOPS[,LATENCY_US]]); repeatable");
  sub->add_option("--disk", args->disk,
                  "This machine's disk for the projection (default: the run's --throttle, else "
                  "not limited)");
  sub->add_flag("--json", args->json, "Print one JSON object instead of text");
  return [args] {
    const Plan plan = make_plan(*args);
    if (args->json) {
      print_json(plan);
    } else {
      print_text(plan);
    }
    return 0;
  };
}

}  // namespace feedrate::bench
