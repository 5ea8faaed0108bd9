// The feedrate command line, run as a user runs it: make-dataset, bench (text and --json),
// --help, bad datasets and the skip policy. The binary's path comes from CMake.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/bench/cli_run.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;
using Result = testing::CliResult;
using testing::json_of;

Result run(const std::string& arguments, const std::string& environment = "") {
  return testing::run_cli(arguments, environment);
}

TEST(Cli, HelpForEveryCommand) {
  for (const std::string command : {"", "bench ", "make-dataset "}) {
    const Result result = run(command + "--help");
    EXPECT_EQ(result.status, 0) << result.output;
    EXPECT_NE(result.output.find("Usage"), std::string::npos);
  }
  EXPECT_NE(run("bench --help").output.find("--workers"), std::string::npos);
}

TEST(Cli, HelpNamesWhatEachOptionExcludes) {
  // CLI11 lists a hidden option as "": an "Excludes:" must be followed by an option's name.
  for (const std::string command :
       {"bench", "tune", "doctor", "plan", "pack", "index", "make-dataset"}) {
    const std::string help = run(command + " --help").output;
    for (auto at = help.find("Excludes:"); at != std::string::npos;
         at = help.find("Excludes:", at + 1)) {
      EXPECT_EQ(help.compare(at, 12, "Excludes: --"), 0)
          << command << ": " << help.substr(at, help.find('\n', at) - at);
    }
  }
  EXPECT_NE(run("bench --help").output.find("Excludes: --no-shuffle"), std::string::npos);
}

TEST(Cli, HelpSaysADatasetMayBeAUrl) {
  for (const std::string command : {"bench", "tune"}) {
    const std::string help = run(command + " --help").output;
    const std::string dataset = help.substr(help.find("DATASET TEXT"));
    const std::string line = dataset.substr(0, dataset.find('\n'));
    EXPECT_NE(line.find("URL (s3://"), std::string::npos) << command << ": " << line;
    EXPECT_NE(line.find("https://"), std::string::npos) << command << ": " << line;
  }
}

TEST(Cli, MakeDatasetThenBenchTarShardsAsJson) {
  testing::TempDir dir;
  const std::string data = (dir / "shards").string();
  const Result made =
      run("make-dataset " + data + " --count 30 --classes 3 --format tar --images-per-shard 12");
  ASSERT_EQ(made.status, 0) << made.output;
  const Result bench = run("bench " + data + " --workers 2 --batch 8 --epochs 2 --json");
  ASSERT_EQ(bench.status, 0) << bench.output;
  const nlohmann::json out = json_of(bench);
  EXPECT_EQ(out["images"], 60);
  EXPECT_EQ(out["skipped"], 0);
  EXPECT_EQ(out["num_workers"], 2);
  EXPECT_EQ(out["batch_size"], 8);
  EXPECT_EQ(out["format"], "tar-shards");
  EXPECT_EQ(out["dataset_samples"], 30);
  EXPECT_EQ(out["epochs"].size(), 2u);
  // Each epoch reads the dataset again (from the page cache or the disk) and says how much.
  std::uint64_t epochs_bytes = 0;
  for (const nlohmann::json& e : out["epochs"]) {
    EXPECT_GT(e["bytes_read"].get<std::uint64_t>(), 0u);
    EXPECT_GT(e["mb_per_s"].get<double>(), 0);
    epochs_bytes += e["bytes_read"].get<std::uint64_t>();
  }
  EXPECT_LE(epochs_bytes, out["bytes_read"].get<std::uint64_t>());
  EXPECT_EQ(out["rank"], 0);
  EXPECT_EQ(out["world_size"], 1);
  EXPECT_GT(out["images_per_s"].get<double>(), 0);
  EXPECT_GT(out["mb_per_s"].get<double>(), 0);
  EXPECT_GT(out["peak_rss_mb"].get<double>(), 0);
  const std::string backend = out["io"]["backend"];  // "io_uring+fixed-buffers", "pread", ...
  EXPECT_TRUE(backend.rfind("io_uring", 0) == 0 || backend.rfind("pread", 0) == 0) << backend;
  EXPECT_EQ(out["device"], "host");
}

TEST(Cli, TextSummaryAndBatchLimit) {
  testing::TempDir dir;
  testing::make_image_folder(dir / "data", 20, 2);
  const Result result = run("bench " + (dir / "data").string() + " --batch 4 --batches 3 --pread");
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("12 images in 3 batches"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("images/s"), std::string::npos);
  EXPECT_NE(result.output.find("peak RSS"), std::string::npos);
  EXPECT_NE(result.output.find("io        pread"), std::string::npos);
}

TEST(Cli, BadDatasetAndBadSamples) {
  testing::TempDir dir;
  const Result missing = run("bench " + (dir / "nope").string());
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.output.find((dir / "nope").string()), std::string::npos) << missing.output;

  testing::make_image_folder(dir / "data", 10, 2);
  const std::string text = "not a jpeg";
  testing::write_file(dir / "data/class_000/bad.jpg", {text.begin(), text.end()});
  const Result stop = run("bench " + (dir / "data").string());
  EXPECT_NE(stop.status, 0);
  EXPECT_NE(stop.output.find("bad.jpg: not an image"), std::string::npos) << stop.output;
  const Result skip = run("bench " + (dir / "data").string() + " --on-bad skip --json");
  ASSERT_EQ(skip.status, 0) << skip.output;
  const nlohmann::json out = json_of(skip);
  EXPECT_EQ(out["images"], 11);  // the skipped place is taken by the epoch's first image again
  EXPECT_EQ(out["skipped"], 1);
  EXPECT_NE(out["skipped_samples"][0]["where"].get<std::string>().find("bad.jpg"),
            std::string::npos);
  EXPECT_EQ(out["skipped_samples"][0]["reason"].get<std::string>().find("bad.jpg"),
            std::string::npos);
  // The text names the skipped file once.
  const Result listed = run("bench " + (dir / "data").string() + " --on-bad skip --no-pack-probe");
  ASSERT_EQ(listed.status, 0) << listed.output;
  const std::string path = (dir / "data/class_000/bad.jpg").string();
  const std::size_t first = listed.output.find(path);
  ASSERT_NE(first, std::string::npos) << listed.output;
  EXPECT_EQ(listed.output.find(path, first + path.size()), std::string::npos) << listed.output;
}

// The JSON's verdict, stages and trace: what a run writes whatever its timing, so this runs
// under the sanitizers too.
TEST(Cli, VerdictStagesAndTraceInTheJson) {
  testing::TempDir dir;
  testing::make_image_folder(dir / "data", 24, 2);
  const std::string trace = (dir / "trace.json").string();
  const Result result =
      run("bench " + (dir / "data").string() + " --batch 4 --step-ms 200 --json --trace " + trace);
  ASSERT_EQ(result.status, 0) << result.output;
  const nlohmann::json out = json_of(result);
  const std::string bottleneck = out["verdict"]["bottleneck"];
  EXPECT_TRUE(out["capacities"].contains(bottleneck)) << bottleneck;
  EXPECT_TRUE(out["capacities"][bottleneck]["binds"].get<bool>()) << out["capacities"].dump();
  for (const char* cause : {"io", "cpu", "ram", "h2d"}) {
    EXPECT_TRUE(out["verdict"]["stalls"].contains(cause)) << cause;
  }
  EXPECT_FALSE(out["verdict"]["advice"].empty());
  for (const char* stage : {"read", "decode", "assemble", "copy", "consumer"}) {
    EXPECT_EQ(out["stages"][stage]["items"].get<int>() > 0, true) << stage;
  }
  EXPECT_DOUBLE_EQ(out["training_images_per_s"].get<double>(), 20.0);
  std::ifstream in(trace);
  const nlohmann::json timeline = nlohmann::json::parse(in);
  std::map<std::string, int> spans;
  for (const auto& event : timeline["traceEvents"]) spans[event["name"]]++;
  EXPECT_EQ(spans["decode"], 24);
  EXPECT_EQ(spans["read"], 24);
  EXPECT_EQ(spans["wait"], 6);
  EXPECT_GE(spans["batches in flight"], 6);
  EXPECT_GE(spans["thread_name"], 3);  // consumer, I/O thread, decode workers
}

// The verdict a slow training step gets, on the real clock: it judges real time, which the
// sanitizers slow unevenly, so `make test-asan` leaves it out (the Makefile's TIMING_SCENARIOS).
// The same verdict on a fake clock, under the sanitizers too: FakeClockVerdict.ASlowStep*.
TEST(Cli, ASlowStepIsTheVerdict) {
  testing::TempDir dir;
  testing::make_image_folder(dir / "data", 24, 2);
  const Result result = run("bench " + (dir / "data").string() + " --batch 4 --step-ms 200 --json");
  ASSERT_EQ(result.status, 0) << result.output;
  const nlohmann::json out = json_of(result);
  // A 200 ms step for 4 tiny images: the loader keeps up by a wide margin.
  EXPECT_EQ(out["verdict"]["bottleneck"], "consumer") << out["capacities"].dump();
}

TEST(Cli, ColdThrottledDirectRunReportsTheReader) {
  testing::TempDir dir;
  testing::make_image_folder(dir / "data", 16, 2);
  const Result result = run("bench " + (dir / "data").string() +
                            " --batch 4 --epochs 2 --cold --direct --throttle 50,1000,100 --json");
  ASSERT_EQ(result.status, 0) << result.output;
  const nlohmann::json out = json_of(result);
  EXPECT_EQ(out["images"], 32);
  EXPECT_EQ(out["epochs"].size(), 2u);
  EXPECT_TRUE(out["io"]["cold"].get<bool>());
  EXPECT_EQ(out["io"]["throttle"], "50 MB/s, 1000 IOPS, 100 us latency");
  EXPECT_GT(out["io"]["latency_p50_us"].get<double>(), 0);
  EXPECT_NE(run("bench --throttle warp").status, 0);
}

TEST(Cli, InvalidOptionsAreRejected) {
  EXPECT_NE(run("bench --workers -1").status, 0);
  EXPECT_NE(run("bench --transform sideways").status, 0);
  EXPECT_NE(run("bench --epochs 2 --batches 3").status, 0);
  EXPECT_NE(run("bench --consume-rate 100 --step-ms 10").status, 0);
  EXPECT_NE(run("bench --consume-rate -5").status, 0);
}

TEST(Cli, ARemoteSourceIsRefusedMoreThan1024RequestsBeforeItIsRead) {
  // Nothing listens on port 9 (discard): an attempt to read would fail with the connection.
  const std::string source = "'http://127.0.0.1:9/shard-{0..1}.tar'";
  for (const std::string command : {"bench ", "tune "}) {
    const Result result = run(command + source + " --queue-depth 1025");
    EXPECT_NE(result.status, 0) << command;
    EXPECT_NE(result.output.find("option io_queue_depth must be in [1, 1024] for a remote source"),
              std::string::npos)
        << command << result.output;
    EXPECT_EQ(result.output.find("connect"), std::string::npos) << command << result.output;
  }
}

TEST(Cli, OptionsAreCheckedBeforeTheDefaultDatasetIsMade) {
  testing::TempDir cache;
  const std::string environment = "FEEDRATE_CACHE=" + cache.path().string();
  for (const std::string command : {"bench --throttle warp", "tune --throttle warp",
                                    "bench --device cuda:x", "tune --layout float16"}) {
    const Result result = run(command, environment);
    EXPECT_NE(result.status, 0) << command;
    EXPECT_EQ(result.output.find("generating"), std::string::npos) << command << result.output;
    EXPECT_TRUE(fs::is_empty(cache.path())) << command;
  }
}

TEST(Cli, TuneTakesTheLoaderOptionsBenchDoes) {
  testing::TempDir dir;
  testing::make_image_folder(dir / "data", 8, 2);
  const std::string text = "not a jpeg";
  testing::write_file(dir / "data/class_000/bad.jpg", {text.begin(), text.end()});
  const std::string tune = "tune " + (dir / "data").string() +
                           " --batch 4 --size 32 --window 0.1 --max-workers 1 --no-adjust --json";
  EXPECT_NE(run(tune).status, 0);  // the bad file stops it under --on-bad error
  const Result result = run(tune +
                            " --on-bad skip --tar-chunk-kb 64 --seed 3 --device cpu "
                            "--memory-budget-mb 64");
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_EQ(json_of(result)["costs"]["tar_chunk_bytes"], 64 << 10);
}

// How often `needle` stands in `text`.
std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

TEST(Cli, PrefetchBatchesIsTheFlagAndPrefetchItsDeprecatedFormerName) {
  testing::TempDir dir;
  testing::make_image_folder(dir / "data", 8, 2);
  const std::string bench = "bench " + (dir / "data").string() + " --batch 4 --size 32 --json ";
  const Result current = run(bench + "--prefetch-batches 2");
  ASSERT_EQ(current.status, 0) << current.output;
  EXPECT_EQ(json_of(current)["costs"]["prefetch_batches"], 2);
  EXPECT_EQ(current.output.find("deprecated"), std::string::npos) << current.output;

  const Result former = run(bench + "--prefetch 2");
  ASSERT_EQ(former.status, 0) << former.output;
  EXPECT_EQ(json_of(former)["costs"]["prefetch_batches"], 2);
  EXPECT_EQ(count_of(former.output, "--prefetch is deprecated; use --prefetch-batches\n"), 1u)
      << former.output;
  EXPECT_EQ(count_of(former.output, "deprecated"), 1u) << former.output;

  EXPECT_NE(run(bench + "--prefetch 0").status, 0);  // the same bounds
  for (const std::string both :
       {"--prefetch 2 --prefetch-batches 3", "--prefetch-batches 3 --prefetch 2"}) {
    const Result refused = run(bench + both);
    EXPECT_NE(refused.status, 0) << both;
    EXPECT_NE(refused.output.find("--prefetch excludes --prefetch-batches"), std::string::npos)
        << refused.output;
  }
  // --help shows the current name only.
  const std::string help = run("bench --help").output;
  EXPECT_EQ(count_of(help, "--prefetch"), count_of(help, "--prefetch-batches")) << help;
  EXPECT_GT(count_of(help, "--prefetch-batches"), 0u) << help;
}

TEST(Cli, TuneNamesPrefetchBatchesInItsJsonAndItsRecommendation) {
  testing::TempDir dir;
  testing::make_image_folder(dir / "data", 8, 2);
  const std::string tune = "tune " + (dir / "data").string() +
                           " --batch 4 --size 32 --window 0.1 --max-workers 1 --no-adjust ";
  const Result json = run(tune + "--prefetch 2 --json");
  ASSERT_EQ(json.status, 0) << json.output;
  EXPECT_EQ(count_of(json.output, "--prefetch is deprecated"), 1u) << json.output;
  const nlohmann::json out = json_of(json);
  EXPECT_EQ(out["recommended"]["prefetch_batches"], 2);
  EXPECT_FALSE(out["recommended"].contains("prefetch"));
  for (const nlohmann::json& point : out["curve"]) {
    EXPECT_EQ(point["prefetch_batches"], 2) << point.dump();
    EXPECT_FALSE(point.contains("prefetch")) << point.dump();
  }
  EXPECT_EQ(out["costs"]["prefetch_batches"], 2);
  EXPECT_FALSE(out["costs"].contains("prefetch"));

  const Result text = run(tune + "--prefetch-batches 2");
  ASSERT_EQ(text.status, 0) << text.output;
  EXPECT_NE(text.output.find("recommend --workers 1 --prefetch-batches 2 --queue-depth"),
            std::string::npos)
      << text.output;
}

TEST(Cli, TheThrottleTakesEveryDiskClass) {
  testing::TempDir dir;
  testing::make_image_folder(dir / "data", 4, 2);
  for (const char* disk : {"hdd", "sata-ssd", "network", "nvme"}) {
    const Result result = run("bench " + (dir / "data").string() +
                              " --batches 1 --batch 2 --no-pack-probe --json --throttle " + disk);
    ASSERT_EQ(result.status, 0) << disk << result.output;
    EXPECT_NE(json_of(result)["io"]["throttle"].get<std::string>(), "unlimited") << disk;
  }
}

TEST(Cli, DefaultDatasetIsGeneratedOnFirstUse) {
  testing::TempDir cache;
  const std::string environment = "FEEDRATE_CACHE=" + cache.path().string();
  const Result first = run("bench --batches 2 --json", environment);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("generating the default dataset"), std::string::npos);
  EXPECT_EQ(json_of(first)["dataset_samples"], 1000);
  const Result second = run("bench --batches 1 --json", environment);
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_EQ(second.output.find("generating"), std::string::npos);
}

}  // namespace
}  // namespace feedrate
