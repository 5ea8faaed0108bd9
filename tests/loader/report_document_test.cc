// The report document and its costs object as JSON text (loader/diagnosis/report_document.h):
// the document is one object with the keys every front end shares, its `costs` is the costs
// document, the costs read back as written, and text that is not a costs object is an error that
// names what is wrong.
#include "loader/diagnosis/report_document.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace feedrate {
namespace {

std::string spelled(const OptionSetting& setting) {
  return setting.option + "=" + setting.value;
}

RunCosts sample_costs() {
  RunCosts costs;
  costs.images_per_s = 1234.5;
  costs.setting.num_workers = 3;
  costs.setting.cpus = 8;
  costs.image.cpu_ms_per_image = 2.25;
  costs.image.bytes_per_image = 110'000;
  costs.image.reads_per_image = 0.125;
  costs.setting.queue_depth = 16;
  costs.setting.dataset_samples = 5000;
  costs.setting.batch_size = 64;
  costs.setting.shuffle = "blocks";
  costs.setting.shuffle_window_mb = 64;
  costs.packed.state = "measured";
  costs.packed.original_ms = 4;
  costs.packed.packed_ms = 3;
  return costs;
}

// The text of `costs` without the field `key`.
std::string without(const RunCosts& costs, const std::string& key) {
  nlohmann::json document = nlohmann::json::parse(costs_document(costs));
  document.erase(key);
  return document.dump();
}

std::string error_of(const std::string& text) {
  try {
    costs_from_document(text);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "no error";
}

TEST(ReportDocument, IsOneObjectWithTheSharedKeysAndTheCostsDocument) {
  Report report;
  report.costs = sample_costs();
  const nlohmann::json document =
      nlohmann::json::parse(report_document(report, RunStats{}, spelled));
  ASSERT_TRUE(document.is_object());
  for (const char* key : {"rank", "world_size", "images_per_s", "skipped_samples", "io", "verdict",
                          "capacities", "stages", "costs", "cache"}) {
    EXPECT_TRUE(document.contains(key)) << key;
  }
  EXPECT_EQ(document.at("costs"), nlohmann::json::parse(costs_document(report.costs)));
}

// The per-image figures at the top are the costs' own, not a second computation of them.
TEST(ReportDocument, PerImageFiguresAreTheCosts) {
  Report report;
  report.costs = sample_costs();
  report.costs.image.decode_ms_per_image = 1.75;
  const nlohmann::json document =
      nlohmann::json::parse(report_document(report, RunStats{}, spelled));
  EXPECT_DOUBLE_EQ(document.at("decode_cpu_ms_per_image").get<double>(), 1.75);
  EXPECT_DOUBLE_EQ(document.at("read_bytes_per_image").get<double>(), 110'000);
}

TEST(CostsDocument, ReadsBackAsWritten) {
  const RunCosts costs = costs_from_document(costs_document(sample_costs()));
  EXPECT_EQ(costs.images_per_s, 1234.5);
  EXPECT_EQ(costs.setting.num_workers, 3);
  EXPECT_EQ(costs.setting.cpus, 8);
  EXPECT_EQ(costs.image.cpu_ms_per_image, 2.25);
  EXPECT_EQ(costs.image.reads_per_image, 0.125);
  EXPECT_EQ(costs.setting.queue_depth, 16u);
  EXPECT_EQ(costs.setting.dataset_samples, 5000u);
  EXPECT_EQ(costs.setting.shuffle, "blocks");
  EXPECT_EQ(costs.setting.shuffle_window_mb, 64u);
  EXPECT_EQ(costs.packed.decode_ratio(), 0.75);
}

TEST(CostsDocument, TextThatIsNotAnObjectIsAnError) {
  EXPECT_EQ(error_of("not json {"), "costs: not an object");
  EXPECT_EQ(error_of("[1, 2]"), "costs: not an object");
}

TEST(CostsDocument, AMissingOrMistypedFieldIsNamed) {
  EXPECT_EQ(error_of(without(sample_costs(), "cpus")), "costs: missing field \"cpus\"");
  EXPECT_EQ(error_of(R"({"images_per_s": "fast"})"),
            "costs: field \"images_per_s\" has the wrong type");
  // Fields older runs lack read back as their defaults.
  EXPECT_EQ(costs_from_document(without(sample_costs(), "shuffle")).setting.shuffle, "full");
}

}  // namespace
}  // namespace feedrate
