// The memory-budget policy on its own: what a slot costs (images, encoded bytes with their
// growth, tar headers), buffers held once (bounce buffers, worker scratch) taken off the budget,
// the default share of the memory limit, and the error when not one slot fits.
#include <gtest/gtest.h>

#include <string>

#include "feedrate/error.h"
#include "loader/pipeline/memory_budget.h"

namespace feedrate {
namespace {

MemoryNeeds needs() {
  MemoryNeeds n;
  n.batch_size = 10;
  n.staging_bytes_per_sample = 1000;
  n.encoded_bytes_per_sample = 400;
  return n;
}

TEST(MemoryBudget, ASlotHoldsImagesAndEncodedBytesWithGrowthAndTarHeaders) {
  MemoryNeeds n = needs();
  EXPECT_DOUBLE_EQ(slot_bytes(n), 10 * (1000 + 1.25 * 400));
  n.tar_members = true;
  EXPECT_DOUBLE_EQ(slot_bytes(n), 10 * (1000 + 1.25 * (400 + 768)));
}

TEST(MemoryBudget, SlotsAreWhatFitsAfterTheSharedBuffers) {
  MemoryNeeds n = needs();                         // 15,000 bytes a slot
  EXPECT_EQ(slots_within_budget(n, 8, 1, 0), 8u);  // 1 MB: 66 fit, 8 wanted
  n.staging_bytes_per_sample = 100'000;            // ~1 MB a slot
  EXPECT_EQ(slots_within_budget(n, 8, 3, 0), 2u);
  n.shared_bytes = 1.5e6;  // bounce buffers and scratch leave 1.5 MB: one slot
  EXPECT_EQ(slots_within_budget(n, 8, 3, 0), 1u);
}

TEST(MemoryBudget, TheDefaultIsAQuarterOfTheMemoryLimit) {
  MemoryNeeds n = needs();
  n.staging_bytes_per_sample = 100'000;                     // ~1 MB a slot
  EXPECT_EQ(slots_within_budget(n, 8, 0, 12'000'000), 2u);  // 3 MB
  EXPECT_EQ(slots_within_budget(n, 8, 0, 0), 8u);           // limit unknown: as wanted
}

TEST(MemoryBudget, TooSmallForOneSlotSaysWhatOneNeeds) {
  MemoryNeeds n = needs();
  n.staging_bytes_per_sample = 1e6;  // 10 MB a slot
  n.shared_bytes = 2e6;
  try {
    slots_within_budget(n, 3, 5, 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("memory_budget_mb: 5 MB is too small for one batch"), std::string::npos)
        << message;
    EXPECT_NE(message.find("2.0 MB of reader and decoder buffers"), std::string::npos) << message;
  }
  try {
    slots_within_budget(n, 3, 0, 20'000'000);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("default memory budget of 5.0 MB"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace feedrate
