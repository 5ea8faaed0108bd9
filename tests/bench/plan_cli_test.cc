// `feedrate plan` on what bench records about the order and packing, and the shuffle-window
// sweep of `feedrate tune`, run as a user runs them. The assertions compare projections with
// each other and with recorded reads, never with wall-clock figures.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>

#include "tests/bench/cli_run.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using testing::CliResult;
using testing::json_of;
using testing::run_cli;

// 60 ImageNet-like JPEGs in tar shards, class by class (the hard case for a shuffle); small
// blocks (--tar-chunk-kb 256) so that even this dataset has a dozen of them.
class PlanCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult made = run_cli("make-dataset " + data() +
                                   " --count 60 --classes 4 --format tar --class-order "
                                   "--images-per-shard 30");
    ASSERT_EQ(made.status, 0) << made.output;
  }
  std::string data() const { return (dir_ / "shards").string(); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  // Runs bench with `options` into `name`.json and returns its path.
  std::string bench(const std::string& name, const std::string& options) {
    const std::string path = file(name + ".json");
    const CliResult result = run_cli("bench " + data() + " --batch 8 --size 64 --workers 1 " +
                                     "--tar-chunk-kb 256 " + options + " --json > " + path);
    EXPECT_EQ(result.status, 0) << result.output;
    return path;
  }

 private:
  testing::TempDir dir_;
};

TEST_F(PlanCli, ProjectsBothShuffleModesOnAnHdd) {
  const std::string full = bench("full", "--shuffle full");
  const CliResult plan = run_cli("plan " + full + " --rate 500 --disk hdd --json");
  ASSERT_EQ(plan.status, 0) << plan.output;
  const nlohmann::json modes = json_of(plan)["shuffle_modes"];
  ASSERT_EQ(modes.size(), 2u) << plan.output;
  EXPECT_EQ(modes[0]["mode"], "full");
  EXPECT_EQ(modes[0]["reads"], "measured");
  EXPECT_EQ(modes[1]["mode"], "blocks");
  EXPECT_EQ(modes[1]["reads"], "projected");
  // Per-sample reads against whole blocks: fewer reads, of more bytes each, so more images/s
  // from the same HDD and fewer reads/s asked of a disk for the same demand.
  EXPECT_GT(modes[0]["reads_per_image"].get<double>(), 0.5);
  EXPECT_LT(modes[1]["reads_per_image"].get<double>(), 0.5);
  EXPECT_GT(modes[1]["bytes_per_read"].get<double>(), modes[0]["bytes_per_read"].get<double>());
  EXPECT_GT(modes[1]["this_machine"]["disk_images_per_s"].get<double>(),
            modes[0]["this_machine"]["disk_images_per_s"].get<double>());
  EXPECT_LT(modes[1]["requirements"]["disk_iops"].get<double>(),
            modes[0]["requirements"]["disk_iops"].get<double>());
  EXPECT_EQ(modes[0]["this_machine"]["first_epoch_binding"], "io");

  const CliResult text = run_cli("plan " + full + " --rate 500 --disk hdd");
  ASSERT_EQ(text.status, 0) << text.output;
  for (const char* line : {"full   [measured reads]", "blocks [projected reads]", "needs "}) {
    EXPECT_NE(text.output.find(line), std::string::npos) << line << "\n" << text.output;
  }
}

TEST_F(PlanCli, ABlocksRunKeepsItsMeasuredReadsAndMix) {
  const std::string blocks = bench("blocks", "--shuffle blocks --shuffle-window-mb 1");
  const CliResult plan = run_cli("plan " + blocks + " --rate 500 --disk hdd --json");
  ASSERT_EQ(plan.status, 0) << plan.output;
  const nlohmann::json out = json_of(plan);
  const nlohmann::json& modes = out["shuffle_modes"];
  ASSERT_EQ(modes.size(), 2u) << plan.output;
  EXPECT_EQ(modes[0]["reads"], "projected");
  EXPECT_DOUBLE_EQ(modes[0]["reads_per_image"].get<double>(), 1.0);
  EXPECT_EQ(modes[1]["reads"], "measured");
  EXPECT_DOUBLE_EQ(modes[1]["reads_per_image"].get<double>(),
                   out["measured"]["reads_per_image"].get<double>());
  EXPECT_GT(modes[1]["label_mix"].get<double>(), 0) << plan.output;
  EXPECT_EQ(out["measured"]["shuffle"], "blocks");
}

// For the same run, plan's first-epoch binding on this machine is the verdict's bottleneck, in
// the same words (include/feedrate/resource.h): a disk throttled far below decoding (io), and a
// bare loop with the page cache (usually cpu; on a loaded machine whatever the verdict found).
TEST_F(PlanCli, BindsFirstOnThisMachineIsTheVerdictsBottleneck) {
  for (const auto& [name, options, expected] :
       {std::tuple{"disk", "--throttle 1 --batches 2 --no-pack-probe", "io"},
        std::tuple{"decode", "--no-pack-probe", ""}}) {
    const std::string run = bench(name, options);
    std::ifstream in(run);
    const nlohmann::json measured = nlohmann::json::parse(in);
    const std::string bottleneck = measured["verdict"]["bottleneck"];
    if (!std::string(expected).empty()) {
      EXPECT_EQ(bottleneck, expected) << measured["verdict"];
    }
    const CliResult plan = run_cli("plan " + run + " --rate 100000 --json");
    ASSERT_EQ(plan.status, 0) << plan.output;
    const std::string binds = json_of(plan)["binds_first"];
    EXPECT_EQ(binds, bottleneck) << plan.output;
  }
}

TEST_F(PlanCli, BenchMeasuresWhatPackingSavesAndPlanProjectsIt) {
  const std::string run = bench("train", "");
  std::ifstream in(run);
  const nlohmann::json costs = nlohmann::json::parse(in)["costs"];
  const nlohmann::json& packed = costs["packed"];
  EXPECT_EQ(packed["state"], "measured") << packed.dump();
  EXPECT_GT(packed["samples"].get<int>(), 0);
  EXPECT_GT(packed["original_ms"].get<double>(), 0);
  EXPECT_GT(packed["packed_ms"].get<double>(), 0);
  EXPECT_GT(packed["packed_bytes"].get<double>(), 0);

  const CliResult plan = run_cli("plan " + run + " --rate 100000 --instance 1,64,nvme --json");
  ASSERT_EQ(plan.status, 0) << plan.output;
  const nlohmann::json p = json_of(plan);
  const nlohmann::json& packing = p["packing"];
  EXPECT_EQ(packing["state"], "measured");
  // The projection applies the measured ratio to the run's own decode cost; the loader's other
  // CPU (reads, copies) stays as it was.
  const double cpu_ms = p["measured"]["cpu_ms_per_image"].get<double>();
  const double decode_ms = p["measured"]["decode_ms_per_image"].get<double>();
  const double ratio = packing["decode_ratio"].get<double>();
  EXPECT_NEAR(packing["cpu_ms_per_image"].get<double>(), cpu_ms - decode_ms * (1 - ratio), 1e-9);
  EXPECT_EQ(p["this_machine"]["binding"], "cpu");  // 100,000 images/s asked of a few cores
  if (ratio < 1) {
    EXPECT_GT(packing["lift"].get<double>(), 1);
  }
  // One core, one decode thread on it: its loader CPU per image sets the rate.
  const nlohmann::json& instance = p["instances"][0];
  EXPECT_NEAR(instance["packed_later_epochs_images_per_s"].get<double>(),
              1e3 / packing["cpu_ms_per_image"].get<double>(), 1e-6);
  EXPECT_NEAR(instance["later_epochs_images_per_s"].get<double>(), 1e3 / cpu_ms, 1e-6);
  const CliResult bench_text =
      run_cli("bench " + data() + " --batch 8 --size 64 --workers 1 --batches 2");
  ASSERT_EQ(bench_text.status, 0) << bench_text.output;
  EXPECT_NE(bench_text.output.find("packing   32 of its JPEGs packed in memory"), std::string::npos)
      << bench_text.output;
  const CliResult text = run_cli("plan " + run + " --rate 100000");
  EXPECT_NE(text.output.find("packed [projected]"), std::string::npos) << text.output;
  // Whether packing lifts the run is measured (under a sanitizer its packed JPEGs may decode no
  // faster): the text follows the ratio of the same run.
  EXPECT_NE(text.output.find(ratio < 1 ? "`feedrate pack DATASET OUT` lifts this CPU-bound machine"
                                       : "packing does not lift this CPU-bound machine"),
            std::string::npos)
      << text.output;
}

TEST_F(PlanCli, PackingIsSkippedOrAlreadyDone) {
  std::ifstream eval(bench("eval", "--transform eval"));
  const nlohmann::json skipped = nlohmann::json::parse(eval)["costs"]["packed"];
  EXPECT_EQ(skipped["state"], "skipped");
  EXPECT_NE(skipped["reason"].get<std::string>().find("eval"), std::string::npos);

  const std::string none = bench("none", "--no-pack-probe");
  const CliResult plan = run_cli("plan " + none + " --rate 100");
  ASSERT_EQ(plan.status, 0) << plan.output;
  EXPECT_NE(plan.output.find("packing: not measured"), std::string::npos) << plan.output;

  const std::string packed_data = file("packed");
  const CliResult pack = run_cli("pack " + data() + " " + packed_data);
  ASSERT_EQ(pack.status, 0) << pack.output;
  const std::string run = file("packed.json");
  ASSERT_EQ(
      run_cli("bench " + packed_data + " --batch 8 --size 64 --workers 1 --json > " + run).status,
      0);
  const CliResult planned = run_cli("plan " + run + " --rate 100");
  ASSERT_EQ(planned.status, 0) << planned.output;
  EXPECT_NE(planned.output.find("the dataset is packed already"), std::string::npos)
      << planned.output;
}

TEST_F(PlanCli, TuneSweepsTheShuffleWindow) {
  const std::string svg = file("windows.svg");
  const CliResult sweep = run_cli("tune " + data() +
                                  " --batch 8 --size 32 --workers 1 --shuffle-windows 1,128 "
                                  "--plot " +
                                  svg + " --json");
  ASSERT_EQ(sweep.status, 0) << sweep.output;
  const nlohmann::json out = json_of(sweep);
  ASSERT_EQ(out["points"].size(), 2u);
  const nlohmann::json& small = out["points"][0];
  const nlohmann::json& whole = out["points"][1];
  EXPECT_EQ(small["window_mb"], 1);
  EXPECT_EQ(whole["window_mb"], 128);
  // One 4 MiB block per window keeps the class-sorted order; a window of the whole dataset
  // mixes it (the order is a pure function of the seed: no timing involved).
  EXPECT_LT(small["label_mix"].get<double>(), whole["label_mix"].get<double>());
  for (const nlohmann::json& p : out["points"]) {
    EXPECT_GT(p["images_per_s"].get<double>(), 0);
    EXPECT_EQ(p["costs"]["shuffle"], "blocks");
  }
  std::ifstream file(svg);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(text.str().rfind("<svg", 0), 0u);
  EXPECT_NE(text.str().find("shuffle window (MB)"), std::string::npos);
  EXPECT_NE(text.str().find("default"), std::string::npos);  // 128 MB is marked

  const CliResult table =
      run_cli("tune " + data() + " --batch 8 --size 32 --workers 1 --shuffle-windows 1");
  ASSERT_EQ(table.status, 0) << table.output;
  EXPECT_NE(table.output.find("labels/batch"), std::string::npos) << table.output;
}

// A file bench wrote before the key was renamed carries "prefetch" where it now writes
// "prefetch_batches": plan reads it as the same record.
TEST_F(PlanCli, AnOlderBenchFileWithPrefetchPlansAsItsCurrentForm) {
  const std::string path = bench("current", "--prefetch-batches 2");
  nlohmann::json current;
  std::ifstream(path) >> current;
  ASSERT_EQ(current["costs"]["prefetch_batches"], 2) << current["costs"].dump();
  nlohmann::json older = current;
  older["costs"]["prefetch"] = older["costs"]["prefetch_batches"];
  older["costs"].erase("prefetch_batches");
  const std::string older_path = file("older.json");
  std::ofstream(older_path) << older.dump();

  const CliResult now = run_cli("plan " + path + " --rate 100 --json");
  const CliResult then = run_cli("plan " + older_path + " --rate 100 --json");
  ASSERT_EQ(now.status, 0) << now.output;
  ASSERT_EQ(then.status, 0) << then.output;
  EXPECT_EQ(json_of(then), json_of(now));
}

TEST(PlanCliInput, AnUnknownShuffleNamesTheFile) {
  testing::TempDir dir;
  const std::string path = (dir / "run.json").string();
  nlohmann::json costs = {
      {"images_per_s", 100},      {"num_workers", 1},     {"cpus", 1},
      {"cpu_ms_per_image", 2},    {"bytes_per_image", 1}, {"reads_per_image", 1},
      {"h2d_bytes_per_image", 1}, {"dataset_bytes", 1},   {"dataset_samples", 1},
      {"peak_rss_mb", 1},         {"batch_size", 1},      {"prefetch_batches", 1},
      {"queue_depth", 1},         {"throttle", ""},       {"shuffle", "sideways"}};
  std::ofstream(path) << nlohmann::json{{"costs", costs}}.dump();
  const CliResult result = run_cli("plan " + path + " --rate 100");
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.output.find(path), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("sideways"), std::string::npos) << result.output;
  costs["shuffle"] = "full";
  costs["packed"] = {{"state", "measured"}};
  std::ofstream(path) << nlohmann::json{{"costs", costs}}.dump();
  const CliResult packed = run_cli("plan " + path + " --rate 100");
  EXPECT_EQ(packed.status, 1);
  EXPECT_NE(packed.output.find("costs.packed: missing field \"reason\""), std::string::npos)
      << packed.output;
}

}  // namespace
}  // namespace feedrate
