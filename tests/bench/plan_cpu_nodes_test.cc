// `feedrate plan --cpu-nodes N,CORES` run as a user runs it: the CPU nodes' projection follows
// the run's measured CPU per image and its images' size (bench/plan/cpu_nodes.h), beside this
// machine and beside each candidate instance; bad values name the option. The assertions compare
// the projection with the run's own recorded costs, never with wall-clock figures.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/bench/cli_run.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using testing::CliResult;
using testing::json_of;
using testing::run_cli;

class PlanCpuNodes : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::make_image_folder(dir_ / "data", 48, 3);
    run_ = (dir_ / "run.json").string();
    const CliResult bench =
        run_cli("bench " + (dir_ / "data").string() +
                " --batch 8 --size 48 --workers 1 --no-pack-probe --json > " + run_);
    ASSERT_EQ(bench.status, 0) << bench.output;
    std::ifstream in(run_);
    costs_ = nlohmann::json::parse(in)["costs"];
  }
  std::string run_;
  nlohmann::json costs_;

 private:
  testing::TempDir dir_;
};

TEST_F(PlanCpuNodes, ProjectsFromTheMeasuredCpuPerImage) {
  const double cpu_ms = costs_["cpu_ms_per_image"].get<double>();
  ASSERT_GT(cpu_ms, 0);
  const double per_node = 16 * 1e3 / cpu_ms;
  // A first plan for this machine's own decode capacity, then a rate whose target (90% of it)
  // lies between this machine plus 2 and plus 3 such nodes.
  const CliResult probe = run_cli("plan " + run_ + " --rate 1 --json");
  ASSERT_EQ(probe.status, 0) << probe.output;
  const double own = json_of(probe)["this_machine"]["cpu_images_per_s"].get<double>();
  const double rate = (own + 2.5 * per_node) / 0.9;
  const std::string common = "plan " + run_ + " --rate " + std::to_string(rate);

  const CliResult three = run_cli(common + " --cpu-nodes 3,16 --json");
  ASSERT_EQ(three.status, 0) << three.output;
  const nlohmann::json p = json_of(three)["cpu_nodes"];
  EXPECT_EQ(p["nodes"], 3);
  EXPECT_EQ(p["cores_per_node"], 16);
  EXPECT_DOUBLE_EQ(p["cpu_ms_per_image"].get<double>(), cpu_ms);
  EXPECT_NEAR(p["images_per_s_per_node"].get<double>(), per_node, 1e-6 * per_node);
  EXPECT_NEAR(p["added_images_per_s"].get<double>(), 3 * per_node, 1e-6 * per_node);
  const double target = p["target_images_per_s"].get<double>();
  EXPECT_NEAR(target, 0.9 * rate, 1e-6 * rate);
  // The rows feedrate.ray ships: the run's uint8 pixels (48 x 48 x 3), a label and an index.
  const double shipped = costs_["h2d_bytes_per_image"].get<double>() + 16;
  EXPECT_DOUBLE_EQ(shipped, 48 * 48 * 3 + 16);
  EXPECT_DOUBLE_EQ(p["shipped_bytes_per_image"].get<double>(), shipped);
  EXPECT_NEAR(p["network_mb_per_s"].get<double>(), target * shipped / 1e6, 1e-9 * target);
  EXPECT_NEAR(p["network_gbit_per_s"].get<double>(), target * shipped * 8 / 1e9, 1e-9 * target);
  ASSERT_EQ(p["gpu_nodes"].size(), 1u);
  const nlohmann::json& here = p["gpu_nodes"][0];
  EXPECT_EQ(here["instance"], "this machine");
  EXPECT_DOUBLE_EQ(here["own_images_per_s"].get<double>(), own);
  EXPECT_NEAR(here["total_images_per_s"].get<double>(), own + 3 * per_node, 1e-6 * per_node);
  EXPECT_EQ(here["cpu_nodes_needed"], 3);
  EXPECT_TRUE(here["meets_target"].get<bool>());

  const CliResult two = run_cli(common + " --cpu-nodes 2,16 --json");
  ASSERT_EQ(two.status, 0) << two.output;
  const nlohmann::json short_of = json_of(two)["cpu_nodes"]["gpu_nodes"][0];
  EXPECT_FALSE(short_of["meets_target"].get<bool>());
  EXPECT_EQ(short_of["cpu_nodes_needed"], 3);

  const CliResult text = run_cli(common + " --cpu-nodes 2,16");
  ASSERT_EQ(text.status, 0) << text.output;
  EXPECT_NE(text.output.find("cpu nodes [projected]: 2 x 16 cores beside the GPU node"),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("short of the target (3 CPU nodes of 16 cores needed)"),
            std::string::npos)
      << text.output;
  // Without the option there is no such projection.
  EXPECT_TRUE(json_of(probe)["cpu_nodes"].is_null());
}

TEST_F(PlanCpuNodes, BesideEachCandidateInstance) {
  const double cpu_ms = costs_["cpu_ms_per_image"].get<double>();
  const CliResult plan =
      run_cli("plan " + run_ + " --rate 1000000 --instance 4,64,nvme --cpu-nodes 1,8 --json");
  ASSERT_EQ(plan.status, 0) << plan.output;
  const nlohmann::json out = json_of(plan);
  const nlohmann::json& beside = out["cpu_nodes"]["gpu_nodes"];
  ASSERT_EQ(beside.size(), 2u);
  EXPECT_EQ(beside[1]["instance"], "4,64,nvme");
  const double own = out["instances"][0]["cpu_images_per_s"].get<double>();
  EXPECT_DOUBLE_EQ(beside[1]["own_images_per_s"].get<double>(), own);
  EXPECT_NEAR(own, 4 * 1e3 / cpu_ms, 1e-6 * own);
  // 900,000 images/s: far beyond one node of 8 cores.
  const double short_by = 0.9 * 1e6 - own;
  EXPECT_EQ(beside[1]["cpu_nodes_needed"], static_cast<int>(std::ceil(short_by * cpu_ms / 8e3)));
  EXPECT_FALSE(beside[1]["meets_target"].get<bool>());
}

TEST_F(PlanCpuNodes, BadValuesNameTheOption) {
  for (const char* bad : {"0,16", "2,0", "-1,8", "2", "2,", ",8", "two,8", "2,8,1", "2.5,8"}) {
    const CliResult result =
        run_cli("plan " + run_ + " --rate 100 --cpu-nodes '" + std::string(bad) + "'");
    EXPECT_EQ(result.status, 1) << bad << ": " << result.output;
    EXPECT_NE(result.output.find("--cpu-nodes \"" + std::string(bad) + "\""), std::string::npos)
        << result.output;
  }
  const CliResult nodes = run_cli("plan " + run_ + " --rate 100 --cpu-nodes 0,16");
  EXPECT_NE(nodes.output.find("N (the CPU nodes) must be a whole number >= 1"), std::string::npos)
      << nodes.output;
  const CliResult cores = run_cli("plan " + run_ + " --rate 100 --cpu-nodes 2,0");
  EXPECT_NE(cores.output.find("CORES (each node's cores) must be a whole number >= 1"),
            std::string::npos)
      << cores.output;
  // Checked before the run is read: a missing run file does not hide it.
  const CliResult first = run_cli("plan /nonexistent/run.json --rate 100 --cpu-nodes 2");
  EXPECT_EQ(first.status, 1);
  EXPECT_NE(first.output.find("--cpu-nodes \"2\": expected N,CORES"), std::string::npos)
      << first.output;
}

}  // namespace
}  // namespace feedrate
