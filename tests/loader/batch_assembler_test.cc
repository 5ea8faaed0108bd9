// BatchAssembler: under `skip` the failed samples leave the batch and the rest move down in
// order (images, labels, indices, where their bytes, fields and keys lie), listed with their file
// and reason; under `error` the first failure becomes the batch's failure, naming its file and
// counting the others.
#include "loader/pipeline/batch_assembler.h"

#include <gtest/gtest.h>

#include <array>

#include "feedrate/error.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

constexpr std::size_t kSampleBytes = 3;

class BatchAssemblerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::make_image_folder(dir_.path(), 6, 2);
    dataset_ = std::make_unique<Dataset>(Dataset::open(dir_.path()));
    slot_.count = 5;
    slot_.images = gpu::HostBuffer(slot_.count * kSampleBytes);
    slot_.sample_bytes = kSampleBytes;
    for (std::size_t i = 0; i < slot_.count * kSampleBytes; ++i) {
      slot_.images.data()[i] = static_cast<std::byte>(i / kSampleBytes);  // sample i's bytes: i
    }
    slot_.indices = {5, 4, 3, 2, 1};
    slot_.labels = {50, 40, 30, 20, 10};
    slot_.errors.assign(slot_.count, "");
    slot_.encoded_offset = {0, 100, 200, 300, 400};
    slot_.encoded_size = {10, 11, 12, 13, 14};
    slot_.member_fields = 1;  // each sample's image and one field
    for (std::uint32_t i = 0; i < slot_.count; ++i) {
      slot_.spans.push_back({0, 5});
      slot_.spans.push_back({5, i});
      slot_.key_at.push_back({i, 1});
    }
  }

  testing::TempDir dir_;
  std::unique_ptr<Dataset> dataset_;
  detail::Slot slot_;
};

TEST_F(BatchAssemblerTest, SkipCompactsTheGoodSamplesInOrder) {
  slot_.errors[1] = "bad one";
  slot_.errors[3] = "bad three";
  const BatchAssembler assembler(*dataset_, BadInputPolicy::kSkip);
  ASSERT_TRUE(assembler.assemble(slot_));
  EXPECT_EQ(slot_.indices, (std::vector<std::uint32_t>{5, 3, 1}));
  EXPECT_EQ(slot_.labels, (std::vector<std::int32_t>{50, 30, 10}));
  for (std::size_t i = 0; i < 3; ++i) {
    const auto expected = static_cast<std::byte>(std::array{0, 2, 4}[i]);
    for (std::size_t b = 0; b < kSampleBytes; ++b) {
      EXPECT_EQ(slot_.images.data()[i * kSampleBytes + b], expected) << "sample " << i;
    }
  }
  // Where each kept sample's bytes, fields and key lie moves with it.
  EXPECT_EQ(slot_.encoded_offset[1], 200u);
  EXPECT_EQ(slot_.encoded_size[2], 14u);
  ASSERT_EQ(slot_.spans.size(), 6u);
  EXPECT_EQ(slot_.spans[3].size, 2u);
  EXPECT_EQ(slot_.spans[5].size, 4u);
  ASSERT_EQ(slot_.key_at.size(), 3u);
  EXPECT_EQ(slot_.key_at[2].at, 4u);
  ASSERT_EQ(slot_.skipped.size(), 2u);
  EXPECT_EQ(slot_.skipped[0].index, 4u);
  EXPECT_EQ(slot_.skipped[0].where, dataset_->describe(4));
  EXPECT_EQ(slot_.skipped[1].reason, "bad three");
  EXPECT_FALSE(slot_.failure);
}

TEST_F(BatchAssemblerTest, SkippingEverySampleLeavesNothingToDeliver) {
  slot_.errors.assign(slot_.count, "bad");
  const BatchAssembler assembler(*dataset_, BadInputPolicy::kSkip);
  EXPECT_FALSE(assembler.assemble(slot_));
  EXPECT_TRUE(slot_.indices.empty());
  EXPECT_EQ(slot_.skipped.size(), 5u);
  EXPECT_FALSE(slot_.failure);
}

TEST_F(BatchAssemblerTest, ErrorMakesTheFirstFailureTheBatchsFailure) {
  slot_.errors[2] = "x.jpg: corrupt";
  slot_.errors[4] = "y.jpg: truncated";
  const BatchAssembler assembler(*dataset_, BadInputPolicy::kError);
  EXPECT_FALSE(assembler.assemble(slot_));
  ASSERT_TRUE(slot_.failure);
  try {
    std::rethrow_exception(slot_.failure);
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "x.jpg: corrupt (and 1 more in this batch)");
  }
  EXPECT_EQ(slot_.indices.size(), 5u);  // untouched
}

TEST_F(BatchAssemblerTest, AGoodBatchIsDeliveredAsItIs) {
  const BatchAssembler assembler(*dataset_, BadInputPolicy::kError);
  EXPECT_TRUE(assembler.assemble(slot_));
  EXPECT_EQ(slot_.indices, (std::vector<std::uint32_t>{5, 4, 3, 2, 1}));
  EXPECT_FALSE(slot_.failure);
}

}  // namespace
}  // namespace feedrate
