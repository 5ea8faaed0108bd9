#include "bench/plan/plan_report.h"

#include <fmt/core.h>

#include <cmath>

#include "bench/plan/gpu_catalogue.h"
#include "io/disk_class.h"
#include "loader/diagnosis/report_document.h"

namespace feedrate::bench {
namespace {

std::string disk_text(const Instance& instance) {
  return instance.disk.empty() ? "not limited" : instance.disk;
}

std::string rate_text(double rate) {
  return std::isinf(rate) ? "unlimited" : fmt::format("{:.0f}", rate);
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
          {"first_epoch_binding", resource_name(p.first_epoch_binding)},
          {"binding", resource_name(p.binding)},
          {"gpu_busy", p.gpu_busy},
          {"meets_target", p.gpu_busy >= kBusyTarget},
          {"dataset_cached", p.dataset_cached},
          {"ram_enough", p.ram_enough},
          {"ram_below_gpu_memory", p.ram_below_gpu}};
}

// What packing the dataset would change: measured on a sample of its JPEGs by the run, projected
// here (loader/diagnosis/packing_probe.h, loader/diagnosis/throughput_model.h's packed_costs()).
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
  out["cpu_ms_per_image"] = plan.packed.image.cpu_ms_per_image;
  out["cores"] = plan.packed_needs.cores;
  out["this_machine"] = projection_json(plan.here, plan.packed_here);
  out["lift"] =
      plan.packed_here.later_epochs_images_per_s / plan.here_projection.later_epochs_images_per_s;
  out["copy_gb"] = plan.packed.setting.dataset_bytes / 1e9;
  return out;
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

void shuffle_modes_text(const Plan& plan, std::string& text) {
  if (plan.modes.empty()) return;
  text += fmt::format(
      "\nshuffle [projected]: for each order, the first epoch on this machine (disk {}; every "
      "epoch when the dataset is not in page cache) and the disk the demand needs:\n",
      disk_text(plan.here));
  for (const ShuffleProjection& m : plan.modes) {
    std::string note;
    if (m.needs_shards)
      note = "; in tar shards first (`feedrate pack`), as folders read a file per sample";
    if (m.mode == "blocks") {
      note += m.mode == plan.costs.setting.shuffle && plan.label_mix > 0
                  ? fmt::format("; batches held {:.0f}% of a full shuffle's labels in this run",
                                100 * plan.label_mix)
                  : "; a less random order (`bench --shuffle blocks` measures its mix)";
    }
    text += fmt::format(
        "  {:<6} [{}] {:.3f} reads per image of {}: {} images/s here ({} binds); needs "
        "{:.0f} MB/s and {:.0f} reads/s: {}{}\n",
        m.mode, m.measured ? "measured reads" : "projected reads", m.costs.image.reads_per_image,
        bytes_text(m.bytes_per_read), rate_text(m.projection.first_epoch_images_per_s),
        resource_name(m.projection.first_epoch_binding), m.needs.disk_mb_per_s, m.needs.disk_iops,
        disk_class_text(m.needs), note);
  }
}

void packing_text(const Plan& plan, std::string& text) {
  const PackedDecodeCost& p = plan.costs.packed;
  if (p.state == "packed") {
    text += fmt::format(
        "\npacking [measured]: the dataset is packed already ({}): the costs above are "
        "a packed dataset's\n",
        p.reason);
    return;
  }
  if (!p.measured()) {
    text +=
        fmt::format("\npacking: not measured ({})\n",
                    p.state.empty() ? "the run recorded no packed decode cost; `feedrate bench` "
                                      "measures it on JPEG data"
                                    : p.reason);
    return;
  }
  const double lift =
      plan.packed_here.later_epochs_images_per_s / plan.here_projection.later_epochs_images_per_s;
  text += fmt::format(
      "\npacking [measured]: {} of the dataset's JPEGs packed in memory decode a train crop in "
      "{:.2f} ms of CPU instead of {:.2f} on one thread ({:.2f}x), in {:.2f}x the bytes\n",
      p.samples, p.packed_ms, p.original_ms, p.decode_ratio(), p.bytes_ratio());
  text += fmt::format(
      "  packed [projected]: {:.2f} ms CPU per image; {} images/s on this machine ({} binds), "
      "{:.2f}x now; {} cores for the demand instead of {}\n",
      plan.packed.image.cpu_ms_per_image, rate_text(plan.packed_here.later_epochs_images_per_s),
      resource_name(plan.packed_here.binding), lift, plan.packed_needs.cores, plan.needs.cores);
  std::string verdict;
  if (plan.here_projection.binding != Resource::kCpu) {
    verdict = fmt::format("packing does not lift this machine much: {} binds, not the CPU",
                          resource_name(plan.here_projection.binding));
  } else if (p.decode_ratio() >= 1) {
    verdict = "packing does not lift this CPU-bound machine: its packed JPEGs decode no faster";
  } else {
    verdict = fmt::format("`feedrate pack DATASET OUT` lifts this CPU-bound machine {:.2f}x", lift);
  }
  text += fmt::format("  {}; costs: a copy of the dataset, {:.2f} GB ({:.2f}x its bytes)\n",
                      verdict, plan.packed.setting.dataset_bytes / 1e9, p.bytes_ratio());
}

// The GPU nodes --cpu-nodes is projected beside: this machine, then each candidate.
std::string gpu_node_label(const Plan& plan, std::size_t i) {
  return i == 0 ? plan.here.label : plan.candidates[i - 1].first.label;
}

nlohmann::json cpu_nodes_json(const Plan& plan) {
  if (!plan.cpu_nodes) return nullptr;
  const CpuNodesProjection& p = plan.cpu_nodes_beside.front();
  nlohmann::json beside = nlohmann::json::array();
  for (std::size_t i = 0; i < plan.cpu_nodes_beside.size(); ++i) {
    const CpuNodesProjection& b = plan.cpu_nodes_beside[i];
    beside.push_back({{"instance", gpu_node_label(plan, i)},
                      {"own_images_per_s", b.own_images_per_s},
                      {"total_images_per_s", b.total_images_per_s},
                      {"cpu_nodes_needed", b.nodes_needed},
                      {"meets_target", b.meets_target}});
  }
  return {{"nodes", p.nodes.nodes},
          {"cores_per_node", p.nodes.cores},
          {"cpu_ms_per_image", plan.costs.image.cpu_ms_per_image},
          {"images_per_s_per_node", p.images_per_s_per_node},
          {"added_images_per_s", p.added_images_per_s},
          {"target_images_per_s", p.target_images_per_s},
          {"shipped_bytes_per_image", p.shipped_bytes_per_image},
          {"network_mb_per_s", p.network_mb_per_s},
          {"network_gbit_per_s", p.network_mb_per_s * 8 / 1e3},
          {"gpu_nodes", beside}};
}

void cpu_nodes_text(const Plan& plan, std::string& text) {
  if (!plan.cpu_nodes) return;
  const CpuNodesProjection& p = plan.cpu_nodes_beside.front();
  text += fmt::format(
      "\ncpu nodes [projected]: {} x {} cores beside the GPU node, decoding through "
      "feedrate.ray (docs/ray.md): {:.2f} ms CPU per image [measured], so {:.0f} images/s a "
      "node, {:.0f} added; the training node takes {:.0f} images/s x {} = {:.0f} MB/s "
      "({:.1f} Gbit/s) over the network\n",
      p.nodes.nodes, p.nodes.cores, plan.costs.image.cpu_ms_per_image, p.images_per_s_per_node,
      p.added_images_per_s, p.target_images_per_s, bytes_text(p.shipped_bytes_per_image),
      p.network_mb_per_s, p.network_mb_per_s * 8 / 1e3);
  for (std::size_t i = 0; i < plan.cpu_nodes_beside.size(); ++i) {
    const CpuNodesProjection& b = plan.cpu_nodes_beside[i];
    text += fmt::format(
        "  beside {:<14} {:.0f} of its own + {:.0f} = {:.0f} images/s for {:.0f}: {} ({} CPU "
        "node{} of {} cores needed)\n",
        gpu_node_label(plan, i), b.own_images_per_s, b.added_images_per_s, b.total_images_per_s,
        b.target_images_per_s, b.meets_target ? "meets the target" : "short of the target",
        b.nodes_needed, b.nodes_needed == 1 ? "" : "s", b.nodes.cores);
  }
}

}  // namespace

nlohmann::json plan_json(const Plan& plan) {
  nlohmann::json out;
  out["input"] = {{"kind", plan.kind}, {"dataset", plan.dataset}};
  out["measured"] = nlohmann::json::parse(costs_document(plan.costs));
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
  out["binds_first"] = resource_name(plan.here_projection.first_epoch_binding);
  out["binds_later_epochs"] = resource_name(plan.here_projection.binding);
  nlohmann::json candidates = nlohmann::json::array();
  for (std::size_t c = 0; c < plan.candidates.size(); ++c) {
    const auto& [instance, projection] = plan.candidates[c];
    nlohmann::json candidate = projection_json(instance, projection);
    if (plan.costs.packed.measured()) {
      candidate["packed_later_epochs_images_per_s"] =
          plan.packed_candidates[c].later_epochs_images_per_s;
    }
    candidates.push_back(candidate);
  }
  out["instances"] = candidates;
  nlohmann::json modes = nlohmann::json::array();
  for (const ShuffleProjection& m : plan.modes) {
    nlohmann::json mode = {{"mode", m.mode},
                           {"reads", m.measured ? "measured" : "projected"},
                           {"needs_tar_shards", m.needs_shards},
                           {"reads_per_image", m.costs.image.reads_per_image},
                           {"bytes_per_read", m.bytes_per_read},
                           {"requirements",
                            {{"disk_mb_per_s", m.needs.disk_mb_per_s},
                             {"disk_iops", m.needs.disk_iops},
                             {"disk_class", m.needs.disk_class}}},
                           {"this_machine", projection_json(plan.here, m.projection)}};
    if (m.mode == plan.costs.setting.shuffle && plan.label_mix > 0)
      mode["label_mix"] = plan.label_mix;
    modes.push_back(mode);
  }
  out["shuffle_modes"] = modes;
  out["packing"] = packing_json(plan);
  out["cpu_nodes"] = cpu_nodes_json(plan);
  out["figures"] = {
      {"measured", "measured: every field of \"measured\" (the input run)"},
      {"estimated",
       std::string(plan.rate_measured ? "" : "estimated: demand (catalogue); ") +
           "projected: requirements, this_machine, instances, shuffle_modes (but the reads of "
           "the run's own mode), packing (but its ms and ratios, measured on the dataset's "
           "images), cpu_nodes (but its cpu_ms_per_image)"}};
  return out;
}

std::string plan_text(const Plan& plan) {
  std::string text;
  const RunCosts& c = plan.costs;
  text +=
      fmt::format("input     [measured] {} run{}: {} worker(s) on {} CPU(s), {:.1f} images/s{}\n",
                  plan.kind, plan.dataset.empty() ? "" : " of " + plan.dataset,
                  c.setting.num_workers, c.setting.cpus, c.images_per_s,
                  c.setting.throttle.empty() ? "" : ", disk throttled to " + c.setting.throttle);
  text += fmt::format(
      "costs     [measured] {:.2f} ms CPU per image, {:.1f} KB and {:.2f} reads per image, "
      "{:.1f} KB to the GPU per image, loader peak RSS {:.0f} MB, dataset {:.2f} GB ({} "
      "samples)\n",
      c.image.cpu_ms_per_image, c.image.bytes_per_image / 1e3, c.image.reads_per_image,
      c.h2d_bytes_per_image / 1e3, c.peak_rss_mb, c.setting.dataset_bytes / 1e9,
      c.setting.dataset_samples);
  text += fmt::format("demand    [{}] {} x {} at {:.0f} images/s = {:.0f} images/s{}\n",
                      plan.rate_measured ? "measured" : "estimated", plan.demand.gpus,
                      plan.gpu_name.empty() ? "GPU" : plan.gpu_name,
                      plan.demand.images_per_s / plan.demand.gpus, plan.demand.images_per_s,
                      plan.rate_measured
                          ? " (--rate)"
                          : " (the catalogue's estimate, see docs/domain.md; pass --rate with your "
                            "measured step)");
  const Requirements& n = plan.needs;
  text += fmt::format("\nTo keep the GPUs >= {:.0f}% busy ({:.0f} images/s) [projected]:\n",
                      100 * kBusyTarget, n.images_per_s);
  text += fmt::format("  cores   {} (decode alone; the training loop needs its own)\n", n.cores);
  text += fmt::format(
      "  RAM     >= {:.1f} GB ({:.2f} GB of loaders{}); >= {:.1f} GB to keep the dataset "
      "in page cache across epochs\n",
      n.ram_gb, n.loader_ram_gb,
      plan.demand.gpu_memory_gb > 0
          ? fmt::format(", at least one GPU's {:.0f} GB", plan.demand.gpu_memory_gb)
          : "",
      n.ram_cached_gb);
  text += fmt::format(
      "  disk    {:.0f} MB/s and {:.0f} reads/s (the first epoch; every epoch without the "
      "cache): {}\n",
      n.disk_mb_per_s, n.disk_iops,
      n.disk_class.empty() ? "more than one NVMe SSD (RAID or several volumes)"
                           : disk_class_text(n));
  text += fmt::format("  PCIe    {:.0f} MB/s to each GPU\n", n.h2d_mb_per_s_per_gpu);
  const Projection& h = plan.here_projection;
  text += fmt::format(
      "\nbinds first [projected]: {} in the first epoch ({:.0f} images/s), {} in later epochs — "
      "this machine ({} cores, {:.0f} GB, disk {}) would deliver {:.0f} images/s then ({:.0f}% "
      "of the GPUs)\n",
      resource_name(h.first_epoch_binding), h.first_epoch_images_per_s, resource_name(h.binding),
      plan.here.cores, plan.here.ram_gb, disk_text(plan.here), h.later_epochs_images_per_s,
      100 * h.gpu_busy);
  shuffle_modes_text(plan, text);
  packing_text(plan, text);
  cpu_nodes_text(plan, text);
  if (plan.candidates.empty()) return text;
  text += fmt::format("\n{:<22} {:>5} {:>7} {:<14} {:>9} {:>9} {:>9} {:>9} {:>6} {:<5} {}\n",
                      "instance", "cores", "RAM GB", "disk", "cpu", "disk", "1st ep.", "later",
                      "GPUs", "binds", "[projected images/s]");
  for (std::size_t c = 0; c < plan.candidates.size(); ++c) {
    const auto& [i, p] = plan.candidates[c];
    std::string notes = p.gpu_busy >= kBusyTarget ? "ok" : "short";
    const double packed = plan.packed_candidates[c].later_epochs_images_per_s;
    if (plan.costs.packed.measured() && packed > 1.01 * p.later_epochs_images_per_s) {
      notes += fmt::format(", packed {}", rate_text(packed));
    }
    if (!p.ram_enough) notes += ", RAM below the loaders' peak: killed";
    if (p.ram_below_gpu) notes += ", RAM below the GPU memory";
    if (!p.dataset_cached && p.ram_enough) notes += ", dataset not cached";
    text += fmt::format("{:<22} {:>5} {:>7.0f} {:<14} {:>9} {:>9} {:>9} {:>9} {:>5.0f}% {:<5} {}\n",
                        i.label, i.cores, i.ram_gb, disk_text(i), rate_text(p.cpu_images_per_s),
                        rate_text(p.disk_images_per_s), rate_text(p.first_epoch_images_per_s),
                        rate_text(p.later_epochs_images_per_s), 100 * p.gpu_busy,
                        resource_name(p.binding), notes);
  }
  return text;
}

}  // namespace feedrate::bench
