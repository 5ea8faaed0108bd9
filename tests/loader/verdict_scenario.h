// The verdict suites' fixture (verdict_scenario_test.cc on the real clock,
// fake_clock_verdict_test.cc on a fake one): a small generated dataset whose bytes per image are
// measured, the options of a run over it, and what a failure prints.
// Thread-safety: single-threaded test code.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "feedrate/loader.h"
#include "loader/diagnosis/verdict.h"
#include "loader/diagnosis/verdict_text.h"
#include "tests/support/test_data.h"

namespace feedrate {

class VerdictFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    datagen::DatasetSpec spec;
    spec.out = dir_->path() / "data";
    spec.count = 96;
    spec.classes = 2;
    datagen::make_dataset(spec);
    std::uintmax_t bytes = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(spec.out)) {
      if (entry.is_regular_file()) bytes += entry.file_size();
    }
    bytes_per_image_ = static_cast<double>(bytes) / spec.count;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static LoaderOptions options(int workers) {
    LoaderOptions o;
    o.source = (dir_->path() / "data").string();
    o.batch_size = kBatch;
    o.transform.size = 64;
    o.num_workers = workers;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }
  // The throttle that lets the disk deliver `images_per_s` of these images (MB/s with the
  // digits a slow disk needs).
  static std::string throttle_for(double images_per_s) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", images_per_s * bytes_per_image_ / 1e6);
    return text;
  }
  static std::string explain(const Report& r) {
    const SlotCycle& c = r.capacities.cycle;
    return verdict_summary(r) + ": " + capacities_text(r.capacities, r.verdict) +
           "; a slot's cycle (ms): reads " + std::to_string(1e3 * c.read_s) + ", decodes " +
           std::to_string(1e3 * c.decode_s) + ", copy " + std::to_string(1e3 * c.copy_s) +
           ", held " + std::to_string(1e3 * c.held_s) + "; wall " + std::to_string(r.wall_s) + " s";
  }

  static constexpr std::size_t kBatch = 16;
  static inline testing::TempDir* dir_ = nullptr;
  static inline double bytes_per_image_ = 0;
};

}  // namespace feedrate
