// The costs record (include/feedrate/run_costs.h): the setting run_costs() takes from a report,
// the `costs` JSON it is written as, and records of older runs read back as `feedrate plan`
// reads them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "feedrate/report.h"
#include "feedrate/run_costs.h"
#include "loader/diagnosis/report_json.h"

namespace feedrate {
namespace {

// A tar run of 1,000 images in 2 s with blocks of 4 MB, its setting unlike every default.
Report tar_run() {
  Report r;
  r.run.batch_size = 32;
  r.run.num_workers = 3;
  r.run.prefetch_batches = 5;
  r.run.cpus = 6;
  r.run.dataset_bytes = 110'000'000;
  r.run.dataset_samples = 1'000;
  r.run.throttle = "hdd";
  r.run.format = "tar-shards";
  r.run.shuffle = "blocks";
  r.run.shuffle_window_mb = 64;
  r.run.chunk_bytes = 4'000'000;
  r.run.image_size = 224;
  r.run.queue_depth = 16;
  r.wall_s = 2;
  r.images = 1'000;
  r.images_per_s = 500;
  r.figures.bytes_read = 110'000'000;
  r.figures.read_operations = 28;
  r.figures.decode_cpu_s = 1;
  r.figures.decode_busy_s = 1;
  r.figures.loader_cpu_s = 1.2;
  r.figures.peak_rss_bytes = 300'000'000;
  return r;
}

void expect_setting_of(const CostSetting& s, const RunSetting& run) {
  EXPECT_EQ(s.batch_size, run.batch_size);
  EXPECT_EQ(s.num_workers, run.num_workers);
  EXPECT_EQ(s.prefetch_batches, run.prefetch_batches);
  EXPECT_EQ(s.cpus, run.cpus);
  EXPECT_EQ(s.dataset_bytes, run.dataset_bytes);
  EXPECT_EQ(s.dataset_samples, run.dataset_samples);
  EXPECT_EQ(s.throttle, run.throttle);
  EXPECT_EQ(s.format, run.format);
  EXPECT_EQ(s.shuffle, run.shuffle);
  EXPECT_EQ(s.shuffle_window_mb, run.shuffle_window_mb);
  EXPECT_EQ(s.chunk_bytes, run.chunk_bytes);
  EXPECT_EQ(s.queue_depth, run.queue_depth);
}

TEST(CostsJson, CarriesTheRunsSettingThereAndBack) {
  const Report r = tar_run();
  const RunCosts costs = run_costs(r);
  expect_setting_of(costs.setting, r.run);

  EXPECT_DOUBLE_EQ(costs.h2d_bytes_per_image, 3.0 * 224 * 224);
  EXPECT_DOUBLE_EQ(costs.peak_rss_mb, 300);

  RunCosts probed = costs;
  probed.packed = {"measured", "", 8, 4.0, 3.0, 110'000, 100'000, 0.5};
  const nlohmann::json j = costs_json(probed);
  EXPECT_EQ(j["prefetch_batches"], 5);  // the batches in flight after the budget
  EXPECT_EQ(j["tar_chunk_bytes"], 4'000'000);
  const RunCosts back = costs_from_json(j);
  expect_setting_of(back.setting, r.run);
  EXPECT_DOUBLE_EQ(back.images_per_s, 500);
  EXPECT_DOUBLE_EQ(back.image.bytes_per_image, 110'000);
  EXPECT_DOUBLE_EQ(back.image.reads_per_image, 0.028);

  EXPECT_EQ(back.packed.state, "measured");
  EXPECT_EQ(back.packed.samples, 8u);
  EXPECT_DOUBLE_EQ(back.packed.decode_ratio(), 0.75);
  EXPECT_DOUBLE_EQ(back.packed.packed_bytes, 100'000);
  EXPECT_DOUBLE_EQ(back.packed.seconds, 0.5);
}

TEST(CostsJson, WritesTheKeysPlanReads) {
  const nlohmann::json j = costs_json(run_costs(tar_run()));
  std::set<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.insert(key);
  const std::set<std::string> expected = {"images_per_s",
                                          "num_workers",
                                          "cpus",
                                          "cpu_ms_per_image",
                                          "cpu_share",
                                          "decode_ms_per_image",
                                          "bytes_per_image",
                                          "reads_per_image",
                                          "queue_depth",
                                          "disk_images_per_s",
                                          "h2d_bytes_per_image",
                                          "dataset_bytes",
                                          "dataset_samples",
                                          "peak_rss_mb",
                                          "batch_size",
                                          "prefetch_batches",
                                          "throttle",
                                          "format",
                                          "shuffle",
                                          "shuffle_window_mb",
                                          "tar_chunk_bytes",
                                          "packed"};
  EXPECT_EQ(keys, expected);
  std::set<std::string> packed;
  for (const auto& [key, value] : j["packed"].items()) packed.insert(key);
  const std::set<std::string> packed_expected = {
      "state",          "reason",       "samples", "original_ms",  "packed_ms",
      "original_bytes", "packed_bytes", "seconds", "decode_ratio", "bytes_ratio"};
  EXPECT_EQ(packed, packed_expected);
}

// What bench wrote before it recorded the order, the storage, the decode share, the disk's
// rate and packing, and while it named prefetch_batches "prefetch": a full shuffle of an
// unknown format, every core's time its own.
TEST(CostsJson, ReadsARecordOfAnOlderRun) {
  const nlohmann::json older = {
      {"images_per_s", 400},      {"num_workers", 2},       {"cpus", 4},
      {"cpu_ms_per_image", 2.5},  {"bytes_per_image", 1e5}, {"reads_per_image", 1},
      {"h2d_bytes_per_image", 1}, {"dataset_bytes", 5e8},   {"dataset_samples", 5000},
      {"peak_rss_mb", 250},       {"batch_size", 64},       {"prefetch", 3},
      {"queue_depth", 64},        {"throttle", "200,1000"}};
  const RunCosts c = costs_from_json(older);
  EXPECT_EQ(c.setting.num_workers, 2);
  EXPECT_EQ(c.setting.cpus, 4);
  EXPECT_EQ(c.setting.batch_size, 64u);
  EXPECT_EQ(c.setting.prefetch_batches, 3u);
  EXPECT_EQ(c.setting.queue_depth, 64u);
  EXPECT_EQ(c.setting.dataset_samples, 5000u);
  EXPECT_EQ(c.setting.throttle, "200,1000");
  EXPECT_EQ(c.setting.format, "");
  EXPECT_EQ(c.setting.shuffle, "full");
  EXPECT_EQ(c.setting.shuffle_window_mb, 0u);
  EXPECT_EQ(c.setting.chunk_bytes, 0u);
  EXPECT_DOUBLE_EQ(c.image.decode_ms_per_image, 0);
  EXPECT_DOUBLE_EQ(c.image.cpu_share, 1);
  EXPECT_DOUBLE_EQ(c.disk_images_per_s, 0);
  EXPECT_EQ(c.packed.state, "");

  nlohmann::json missing = older;
  missing.erase("prefetch");
  try {
    costs_from_json(missing);
    ADD_FAILURE() << "a record without prefetch_batches was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing field \"prefetch_batches\""), std::string::npos)
        << e.what();
  }
}

// A record under the current key reads it, whatever the former key beside it says; a former
// key of the wrong type is named as written.
TEST(CostsJson, ReadsPrefetchBatchesUnderItsCurrentKeyFirst) {
  nlohmann::json j = costs_json(run_costs(tar_run()));
  j["prefetch"] = 9;
  EXPECT_EQ(costs_from_json(j).setting.prefetch_batches, 5u);

  j.erase("prefetch_batches");
  j["prefetch"] = "three";
  try {
    costs_from_json(j);
    ADD_FAILURE() << "a record with a text prefetch was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("field \"prefetch\" has the wrong type"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace feedrate
