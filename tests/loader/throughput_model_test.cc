// The projection formulas the verdict and `feedrate plan` share: what cores and disks deliver,
// a run's reads under another shuffle mode, and its costs with the dataset packed.
#include "loader/diagnosis/throughput_model.h"

#include <gtest/gtest.h>

#include <cmath>

namespace feedrate {
namespace {

constexpr double kBlock = 4'000'000;

// An ImageNet-like JPEG read one member per sample: 110 KB per read.
ImageCosts per_sample() {
  return {2.0, 110'000, 1.0};
}

TEST(ThroughputModel, CoresAndDisks) {
  EXPECT_DOUBLE_EQ(cpu_images_per_s(per_sample(), 2), 1000);
  EXPECT_TRUE(std::isinf(cpu_images_per_s({0, 1, 1}, 2)));
  const io::ThrottleSpec hdd = io::parse_throttle("hdd");  // 200 MB/s, 150 IOPS
  EXPECT_DOUBLE_EQ(disk_images_per_s(per_sample(), 64, hdd), 150);
  EXPECT_TRUE(std::isinf(disk_images_per_s(per_sample(), 64, {})));
}

TEST(ThroughputModel, AFullRunsReadsAsBlocks) {
  const ReadLayout layout{110'000, kBlock};
  EXPECT_DOUBLE_EQ(costs_under_shuffle(per_sample(), ShuffleMode::kFull, ShuffleMode::kFull, layout)
                       .reads_per_image,
                   1.0);
  const ImageCosts blocks =
      costs_under_shuffle(per_sample(), ShuffleMode::kFull, ShuffleMode::kBlocks, layout);
  EXPECT_DOUBLE_EQ(blocks.reads_per_image, 110'000 / kBlock);
  EXPECT_DOUBLE_EQ(blocks.bytes_per_image, 110'000);
  EXPECT_DOUBLE_EQ(blocks.cpu_ms_per_image, 2.0);
  // On an HDD the seeks bound the full shuffle, the bandwidth the blocks.
  const io::ThrottleSpec hdd = io::parse_throttle("hdd");
  EXPECT_NEAR(disk_images_per_s(blocks, 64, hdd), 200e6 / 110'000, 1e-6);
  // Storage order reads the same blocks.
  EXPECT_DOUBLE_EQ(costs_under_shuffle(per_sample(), ShuffleMode::kFull, ShuffleMode::kNone, layout)
                       .reads_per_image,
                   110'000 / kBlock);
}

TEST(ThroughputModel, ABlocksRunsReadsAsAFullShuffle) {
  // Measured: whole 4 MB blocks, 112 KB read per delivered image (tar headers and labels).
  const ImageCosts measured{2.0, 112'000, 0.028};
  const ReadLayout layout{110'000, kBlock};
  const ImageCosts same =
      costs_under_shuffle(measured, ShuffleMode::kBlocks, ShuffleMode::kBlocks, layout);
  EXPECT_DOUBLE_EQ(same.reads_per_image, 0.028);
  EXPECT_DOUBLE_EQ(same.bytes_per_image, 112'000);
  const ImageCosts full =
      costs_under_shuffle(measured, ShuffleMode::kBlocks, ShuffleMode::kFull, layout);
  EXPECT_DOUBLE_EQ(full.reads_per_image, 1.0);
  EXPECT_DOUBLE_EQ(full.bytes_per_image, 110'000);  // the sample alone
  // A storage-order run also reads one sample per read under a full shuffle.
  EXPECT_DOUBLE_EQ(
      costs_under_shuffle(measured, ShuffleMode::kNone, ShuffleMode::kFull, layout).reads_per_image,
      1.0);
}

TEST(ThroughputModel, WithoutBlocksTheReadsStayPerSample) {
  // Folders, or --tar-chunk-kb 0: every order reads one sample per read.
  const ReadLayout layout{110'000, 0};
  EXPECT_DOUBLE_EQ(
      costs_under_shuffle(per_sample(), ShuffleMode::kFull, ShuffleMode::kBlocks, layout)
          .reads_per_image,
      1.0);
  // Blocks never read more often than the run measured.
  const ImageCosts few{2.0, 110'000, 0.01};
  EXPECT_DOUBLE_EQ(costs_under_shuffle(few, ShuffleMode::kFull, ShuffleMode::kBlocks, {0, kBlock})
                       .reads_per_image,
                   0.01);
}

TEST(ThroughputModel, PackedCostsScaleDecodeAndBytes) {
  const ImageCosts packed = packed_costs(per_sample(), 0.75, 0.99);
  EXPECT_DOUBLE_EQ(packed.cpu_ms_per_image, 1.5);
  EXPECT_DOUBLE_EQ(packed.bytes_per_image, 108'900);
  EXPECT_DOUBLE_EQ(packed.reads_per_image, 1.0);
  EXPECT_NEAR(cpu_images_per_s(packed, 2) / cpu_images_per_s(per_sample(), 2), 1 / 0.75, 1e-12);
  const ImageCosts unmeasured = packed_costs(per_sample(), 0, -1);
  EXPECT_DOUBLE_EQ(unmeasured.cpu_ms_per_image, 2.0);
  EXPECT_DOUBLE_EQ(unmeasured.bytes_per_image, 110'000);
}

}  // namespace
}  // namespace feedrate
