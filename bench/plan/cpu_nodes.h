// `feedrate plan --cpu-nodes N,CORES`: N CPU nodes of CORES cores beside the GPU node, decoding
// for it through feedrate.ray (docs/ray.md), projected with the model of feedrate.ray's report
// (python/feedrate/_ray_diagnosis.py):
//   a CPU node of CORES cores decodes CORES x 1000 / (CPU ms per image) images/s, from the run's
//     measured CPU per image (loader/diagnosis/throughput_model.h's cpu_images_per_s(), on a
//     node of its own: no share of its cores taken by others);
//   the training node takes the target rate's rows over the network: target x the bytes
//     feedrate.ray ships per image (the uint8 pixels and the int64 label and index columns), as
//     Ray places read tasks on any node with free CPUs;
//   the target is met when the GPU node's own decode capacity plus the CPU nodes' reach it.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "bench/plan/instance_model.h"
#include "feedrate/run_costs.h"

namespace feedrate::bench {

// feedrate.ray's columns beside the pixels (python/feedrate/ray.py): label and index, int64.
inline constexpr double kRayRowColumnBytes = 2 * 8;

struct CpuNodes {
  int nodes = 0;
  int cores = 0;
};

// Parses "N,CORES" (both integers >= 1). Throws std::invalid_argument naming --cpu-nodes and
// the text.
CpuNodes parse_cpu_nodes(const std::string& text);

struct CpuNodesProjection {
  CpuNodes nodes;
  double images_per_s_per_node = 0;  // one CPU node
  double added_images_per_s = 0;     // all N of them
  double own_images_per_s = 0;       // the GPU node's own decode capacity
  double total_images_per_s = 0;     // own + added
  double target_images_per_s = 0;    // Requirements::images_per_s
  int nodes_needed = 0;              // CPU nodes of CORES cores beside the GPU node's own
  double shipped_bytes_per_image = 0;
  double network_mb_per_s = 0;  // into the training node, at the target rate
  bool meets_target = false;
};

// The GPU node's own decode capacity is `gpu_node`'s CPU projection (Projection::cpu_images_per_s).
CpuNodesProjection project_cpu_nodes(const RunCosts& costs, const Requirements& needs,
                                     const Projection& gpu_node, const CpuNodes& nodes);

}  // namespace feedrate::bench
