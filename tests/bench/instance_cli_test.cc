// doctor, tune and plan, run as a user runs them. The tune and plan checks compare a run's own
// figures with another run's, on a disk throttled to a few reads or bytes per second: the
// throttle is deterministic and far below what the CPU can decode, so the figures hold on a
// busy 2-core machine. No wall-clock thresholds.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/bench/cli_run.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using testing::CliResult;
using testing::json_of;
using testing::run_cli;

TEST(Doctor, JsonReportsTheMachineAndAMeasuredDisk) {
  testing::TempDir dir;
  const CliResult result = run_cli("doctor --json --dataset " + dir.path().string() +
                                   " --probe-mb 8 --probe-seconds 0.2");
  ASSERT_EQ(result.status, 0) << result.output;
  const nlohmann::json out = json_of(result);
  EXPECT_GE(out["cpu"]["available"].get<int>(), 1);
  EXPECT_LE(out["cpu"]["available"].get<int>(), out["cpu"]["online"].get<int>());
  EXPECT_GT(out["memory"]["limit_bytes"].get<double>(), 0);
  EXPECT_LE(out["memory"]["limit_bytes"].get<double>(),
            out["memory"]["physical_bytes"].get<double>());
  const nlohmann::json& disk = out["disk"];
  EXPECT_EQ(disk["error"], "") << result.output;
  EXPECT_GT(disk["sequential_mb_per_s"].get<double>(), 0);
  EXPECT_GT(disk["random_4k_iops"].get<double>(), 0);
  const std::string cls = disk["class"];
  EXPECT_TRUE(cls == "hdd" || cls == "sata-ssd" || cls == "nvme") << cls;
  EXPECT_FALSE(disk["mount_point"].get<std::string>().empty());
  EXPECT_TRUE(out["io_uring"]["available"].is_boolean());
  EXPECT_TRUE(out["gpus"].is_array());
  EXPECT_TRUE(out["warnings"].is_array());
  // The probe file is gone.
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(Doctor, TextAndBadDataset) {
  const CliResult text = run_cli("doctor --no-disk");
  ASSERT_EQ(text.status, 0) << text.output;
  for (const char* line : {"cpu ", "memory ", "swap ", "io_uring ", "/dev/shm "}) {
    EXPECT_NE(text.output.find(line), std::string::npos) << line << "\n" << text.output;
  }
  const CliResult bad = run_cli("doctor --dataset /nonexistent/feedrate-data");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("/nonexistent/feedrate-data"), std::string::npos) << bad.output;
}

// 320 small images; decoding one to 32x32 costs well under a millisecond, so at 150 reads/s the
// throttled disk, not the CPU, sets the rate at every worker count. An epoch (2.1 s) is longer
// than a tuning window (2 s), so a window sees at most one epoch restart, where the throttle's
// 50 ms burst can lift a point by up to 2.5%: the 95% margin covers it.
class Throttled : public ::testing::Test {
 protected:
  void SetUp() override { testing::make_image_folder(data(), 320, 4); }
  std::string data() const { return (dir_ / "data").string(); }
  static constexpr const char* kShape = " --batch 8 --size 32 ";

 private:
  testing::TempDir dir_;
};

TEST_F(Throttled, SmartTuneFindsTheExhaustiveBestInLessTime) {
  const std::string common = "tune " + data() + kShape +
                             "--throttle 0,150 --window 2 --min-workers 1 --max-workers 5 "
                             "--no-adjust --json";
  const CliResult smart = run_cli(common);
  ASSERT_EQ(smart.status, 0) << smart.output;
  const CliResult full = run_cli(common + " --exhaustive");
  ASSERT_EQ(full.status, 0) << full.output;
  const nlohmann::json s = json_of(smart), f = json_of(full);
  EXPECT_EQ(f["workers_measured"], 5);
  EXPECT_LT(s["workers_measured"].get<int>(), f["workers_measured"].get<int>());
  EXPECT_LT(s["seconds"].get<double>(), f["seconds"].get<double>());
  // The knee the smart search recommends reaches 95% of the exhaustive sweep's best.
  EXPECT_GE(s["knee"]["images_per_s"].get<double>(), 0.95 * f["best"]["images_per_s"].get<double>())
      << smart.output << full.output;
  for (const nlohmann::json& point : f["curve"]) {
    EXPECT_GT(point["peak_rss_mb"].get<double>(), 0);
    EXPECT_FALSE(point["refused"].get<bool>());
    // 150 reads/s of these small images at any worker count: the verdict's word for the disk.
    EXPECT_EQ(point["bottleneck"], "io") << point.dump();
  }
  EXPECT_EQ(s["recommended"]["workers"], s["knee"]["workers"]);
  EXPECT_EQ(s["recommended"]["bottleneck"], "io") << s["recommended"].dump();
  EXPECT_TRUE(s["costs"].is_object());
}

TEST_F(Throttled, TuneAdjustsAndPlots) {
  testing::TempDir out;
  const std::string svg = (out / "curve.svg").string();
  const CliResult result = run_cli("tune " + data() + kShape +
                                   "--throttle 0,300 --window 0.3 --max-workers 2 --plot " + svg);
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("knee"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("adjust    prefetch_batches 6"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("recommend --workers"), std::string::npos) << result.output;
  std::ifstream file(svg);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(text.str().rfind("<svg", 0), 0u);
  EXPECT_NE(text.str().find("knee"), std::string::npos);
  EXPECT_NE(text.str().find("</svg>"), std::string::npos);
}

TEST_F(Throttled, TuneRefusesSettingsPastTheMemoryLimit) {
  const CliResult result =
      run_cli("tune " + data() + kShape + "--window 0.2 --max-workers 2 --memory-limit-mb 1");
  EXPECT_EQ(result.status, 1) << result.output;
  EXPECT_NE(result.output.find("memory limit (1 MB)"), std::string::npos) << result.output;
}

// The plan's projection for a throttled disk, from the costs of an unthrottled run, against a
// run on that throttled disk.
TEST_F(Throttled, PlanProjectionMatchesAMeasuredThrottledRun) {
  testing::TempDir out;
  const std::string costs = (out / "bench.json").string();
  const CliResult bench =
      run_cli("bench " + data() + kShape + "--workers 1 --epochs 2 --json > " + costs);
  ASSERT_EQ(bench.status, 0) << bench.output;
  const CliResult plan =
      run_cli("plan " + costs + " --rate 1000000 --instance 1,64,0.6 --instance 4,64,nvme --json");
  ASSERT_EQ(plan.status, 0) << plan.output;
  const nlohmann::json p = json_of(plan);
  const nlohmann::json& slow = p["instances"][0];
  EXPECT_EQ(slow["first_epoch_binding"], "io") << plan.output;
  const double projected = slow["first_epoch_images_per_s"].get<double>();

  const CliResult measured =
      run_cli("bench " + data() + kShape + "--workers 1 --throttle 0.6 --json");
  ASSERT_EQ(measured.status, 0) << measured.output;
  const double actual = json_of(measured)["images_per_s"].get<double>();
  EXPECT_NEAR(projected / actual, 1.0, 0.15)
      << "projected " << projected << ", measured " << actual;
  EXPECT_EQ(p["demand"]["source"], "measured (--rate)");
  EXPECT_GT(p["requirements"]["cores"].get<int>(), 1);
  EXPECT_EQ(p["instances"].size(), 2u);
}

TEST_F(Throttled, PlanFromTuneWithACatalogueGpuAsText) {
  testing::TempDir out;
  const std::string tuned = (out / "tune.json").string();
  const CliResult tune = run_cli("tune " + data() + kShape +
                                 "--window 0.2 --max-workers 1 --no-adjust --json > " + tuned);
  ASSERT_EQ(tune.status, 0) << tune.output;
  const CliResult plan =
      run_cli("plan " + tuned + " --gpus 4 --gpu 'Tesla T4' --instance 8,32,sata-ssd");
  ASSERT_EQ(plan.status, 0) << plan.output;
  for (const char* text :
       {"[measured]", "[estimated]", "[projected]", "binds first", "8,32,sata-ssd"}) {
    EXPECT_NE(plan.output.find(text), std::string::npos) << text << "\n" << plan.output;
  }
}

TEST(Plan, BadInputNamesTheFile) {
  testing::TempDir dir;
  const std::string path = (dir / "not-a-run.json").string();
  std::ofstream(path) << "{\"images_per_s\": 3}";
  const CliResult result = run_cli("plan " + path + " --rate 100");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.output.find(path), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("costs"), std::string::npos) << result.output;
  const CliResult missing = run_cli("plan " + (dir / "absent.json").string() + " --rate 100");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.output.find("absent.json: cannot open"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace feedrate
