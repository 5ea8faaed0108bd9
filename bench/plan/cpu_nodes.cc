#include "bench/plan/cpu_nodes.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "loader/diagnosis/throughput_model.h"

namespace feedrate::bench {
namespace {

// A whole number >= 1, all of `part`; -1 otherwise.
int count(const std::string& part) {
  if (part.empty() || part.size() > 9 ||
      part.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  const int value = std::stoi(part);
  return value >= 1 ? value : -1;
}

}  // namespace

CpuNodes parse_cpu_nodes(const std::string& text) {
  const auto comma = text.find(',');
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("--cpu-nodes \"" + text + "\": " + why);
  };
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) {
    throw bad("expected N,CORES (CPU nodes, cores each), e.g. 2,32");
  }
  CpuNodes nodes;
  nodes.nodes = count(text.substr(0, comma));
  nodes.cores = count(text.substr(comma + 1));
  if (nodes.nodes < 1) throw bad("N (the CPU nodes) must be a whole number >= 1");
  if (nodes.cores < 1) throw bad("CORES (each node's cores) must be a whole number >= 1");
  return nodes;
}

CpuNodesProjection project_cpu_nodes(const RunCosts& costs, const Requirements& needs,
                                     const Projection& gpu_node, const CpuNodes& nodes) {
  CpuNodesProjection p;
  p.nodes = nodes;
  ImageCosts image = costs.image;
  image.cpu_share = 1;  // a node of its own
  p.images_per_s_per_node = cpu_images_per_s(image, nodes.cores);
  p.added_images_per_s = nodes.nodes * p.images_per_s_per_node;
  p.own_images_per_s = gpu_node.cpu_images_per_s;
  p.total_images_per_s = p.own_images_per_s + p.added_images_per_s;
  p.target_images_per_s = needs.images_per_s;
  const double short_by = std::max(0.0, p.target_images_per_s - p.own_images_per_s);
  p.nodes_needed = p.images_per_s_per_node > 0
                       ? static_cast<int>(std::ceil(short_by / p.images_per_s_per_node - 1e-9))
                       : 0;
  p.shipped_bytes_per_image = costs.h2d_bytes_per_image + kRayRowColumnBytes;
  p.network_mb_per_s = p.target_images_per_s * p.shipped_bytes_per_image / 1e6;
  p.meets_target = p.total_images_per_s >= p.target_images_per_s;
  return p;
}

}  // namespace feedrate::bench
