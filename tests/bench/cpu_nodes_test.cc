// The CPU nodes beside a GPU node (bench/plan/cpu_nodes.h), on synthetic costs: the model's
// arithmetic and the option's parsing.
#include "bench/plan/cpu_nodes.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace feedrate::bench {
namespace {

RunCosts costs() {
  RunCosts c;
  c.image.cpu_ms_per_image = 2.5;  // 400 images/s a core
  c.image.decode_ms_per_image = 2;
  c.image.cpu_share = 0.5;  // the measuring machine's: not a CPU node's
  c.h2d_bytes_per_image = 150'528;
  return c;
}

TEST(CpuNodes, ParsesNodesAndCores) {
  const CpuNodes n = parse_cpu_nodes("2,32");
  EXPECT_EQ(n.nodes, 2);
  EXPECT_EQ(n.cores, 32);
  for (const char* bad : {"", "2", "0,32", "2,0", "-2,32", "2,32,1", "2.0,32", "a,b", " 2,32"}) {
    try {
      parse_cpu_nodes(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--cpu-nodes \"" + std::string(bad) + "\""),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(CpuNodes, AddsNodesOfTheMeasuredCpuPerImage) {
  Requirements needs;
  needs.images_per_s = 30'000;
  Projection gpu_node;
  gpu_node.cpu_images_per_s = 4'000;
  const CpuNodesProjection p = project_cpu_nodes(costs(), needs, gpu_node, {2, 32});
  EXPECT_DOUBLE_EQ(p.images_per_s_per_node, 32 * 1e3 / 2.5);  // 12,800
  EXPECT_DOUBLE_EQ(p.added_images_per_s, 25'600);
  EXPECT_DOUBLE_EQ(p.total_images_per_s, 29'600);
  EXPECT_FALSE(p.meets_target);
  EXPECT_EQ(p.nodes_needed, 3);  // 26,000 short: 2.03 nodes
  EXPECT_DOUBLE_EQ(p.shipped_bytes_per_image, 150'544);
  EXPECT_DOUBLE_EQ(p.network_mb_per_s, 30'000.0 * 150'544 / 1e6);

  const CpuNodesProjection three = project_cpu_nodes(costs(), needs, gpu_node, {3, 32});
  EXPECT_TRUE(three.meets_target);
  EXPECT_EQ(three.nodes_needed, 3);
  gpu_node.cpu_images_per_s = 40'000;  // the GPU node alone is enough
  EXPECT_EQ(project_cpu_nodes(costs(), needs, gpu_node, {1, 8}).nodes_needed, 0);
}

}  // namespace
}  // namespace feedrate::bench
