// `feedrate plan RUN.json`: from the per-image costs a bench or tune run measured, and the
// GPUs to feed, what an instance needs (cores, RAM, disk class) to keep them >= 90% busy, which
// resource binds first, how candidate instance shapes would do (bench/plan/instance_model.h), what
// each shuffle mode reads and needs, what packing the dataset would lift, and what CPU nodes beside
// the GPU node would add through feedrate.ray (bench/plan/cpu_nodes.h). Rendered by
// bench/plan/plan_report.h.
#include <fmt/core.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/cli/commands.h"
#include "bench/plan/cpu_nodes.h"
#include "bench/plan/gpu_catalogue.h"
#include "bench/plan/instance_model.h"
#include "bench/plan/plan_report.h"
#include "loader/diagnosis/report_document.h"
#include "loader/host/system_info.h"

namespace feedrate::bench {
namespace {

struct PlanArgs {
  std::string input;
  int gpus = 1;
  std::string gpu;
  double rate = 0;  // per GPU, measured by the user
  std::vector<std::string> instances;
  std::string disk;  // this machine's disk, for "binds first"; default: the run's throttle
  std::optional<std::string> cpu_nodes;  // N,CORES
  bool json = false;
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

Plan make_plan(const PlanArgs& args) {
  Plan plan;
  if (args.cpu_nodes) plan.cpu_nodes = parse_cpu_nodes(*args.cpu_nodes);
  const nlohmann::json input = read_input(args.input);
  if (!input.is_object() || !input.contains("costs")) {
    throw std::runtime_error(args.input +
                             ": no \"costs\" object; give the output of `feedrate bench --json` "
                             "or `feedrate tune --json`");
  }
  plan.kind = input.contains("mode") ? "tune" : "bench";
  plan.dataset = input.value("dataset", "");
  try {
    plan.costs = costs_from_document(input.at("costs").dump());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(args.input + ": " + e.what());
  }
  if (plan.costs.images_per_s <= 0 || plan.costs.image.cpu_ms_per_image <= 0) {
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
  const std::string disk = args.disk.empty() ? plan.costs.setting.throttle : args.disk;
  plan.here = parse_instance(fmt::format("{},{},{}", std::max(1, plan.costs.setting.cpus),
                                         memory_limit_bytes() / 1e9, disk.empty() ? "0" : disk));
  plan.here.label = "this machine";
  plan.here.disk = disk;
  plan.here.runs_as_measured = args.disk.empty();  // with another disk, as any instance
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
    plan.packed_candidates.push_back(project(plan.packed, plan.demand, instance));
  }
  if (plan.cpu_nodes) {
    plan.cpu_nodes_beside.push_back(
        project_cpu_nodes(plan.costs, plan.needs, plan.here_projection, *plan.cpu_nodes));
    for (const auto& [instance, projection] : plan.candidates) {
      plan.cpu_nodes_beside.push_back(
          project_cpu_nodes(plan.costs, plan.needs, projection, *plan.cpu_nodes));
    }
  }
  return plan;
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
                  "GPU model from the catalogue in docs/domain.md (A100-80GB-SXM, H100-SXM, L4, "
                  "...: its memory, and an estimated images/s)");
  sub->add_option("--rate", args->rate,
                  "Training images/s of one GPU, measured (preferred over the catalogue estimate)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--instance", args->instances,
                  "Candidate instance cores,ram_gb,disk (disk: hdd, network, sata-ssd, nvme or "
                  "MBPS[,IOPS[,LATENCY_US]]); repeatable");
  sub->add_option("--disk", args->disk,
                  "This machine's disk for the projection (default: the run's --throttle, else "
                  "not limited)");
  sub->add_option("--cpu-nodes", args->cpu_nodes,
                  "N,CORES: N CPU nodes of CORES cores beside the GPU node, decoding for it "
                  "through feedrate.ray (docs/ray.md): their added images/s, the network into "
                  "the training node, and whether the target is met");
  sub->add_flag("--json", args->json, "Print one JSON object instead of text");
  return [args] {
    const Plan plan = make_plan(*args);
    if (args->json) {
      fmt::print("{}\n", plan_json(plan).dump(2));
    } else {
      fmt::print("{}", plan_text(plan));
    }
    return 0;
  };
}

}  // namespace feedrate::bench
