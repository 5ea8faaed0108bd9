// What `feedrate plan` found (bench/cli/plan_command.cc builds it from a run's JSON and the
// demand, with bench/plan/instance_model.h), and its two renderings: text for people, in which
// every line says whether its figures are measured, estimated or projected, and one JSON object.
// Thread-safety: plain values and pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/plan/cpu_nodes.h"
#include "bench/plan/instance_model.h"

namespace feedrate::bench {

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
  std::vector<Projection> packed_candidates;  // one per candidate
  // --cpu-nodes: those CPU nodes beside this machine, then beside each candidate as the GPU node.
  std::optional<CpuNodes> cpu_nodes;
  std::vector<CpuNodesProjection> cpu_nodes_beside;
};

std::string plan_text(const Plan& plan);
nlohmann::json plan_json(const Plan& plan);

}  // namespace feedrate::bench
