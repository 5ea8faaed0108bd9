// Under on_bad="skip" a batch takes the next samples of the epoch in place of the skipped ones
// (loader/pipeline/batch_filler.h): batches keep batch_size, the same whatever num_workers, and
// a state saved at any batch resumes to the same rest of the epoch.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "feedrate/loader.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;
using testing::small_jpeg;
using testing::TempDir;
using testing::write_file;

// What a batch delivered: its samples and the bytes of its images.
struct Delivered {
  std::vector<std::uint32_t> indices;
  std::vector<std::uint8_t> pixels;
  bool operator==(const Delivered&) const = default;
};

void PrintTo(const Delivered& batch, std::ostream* out) {
  *out << "samples";
  for (std::uint32_t index : batch.indices) *out << ' ' << index;
}

Delivered delivered(const Batch& batch) {
  const std::span<const std::uint8_t> pixels = batch.images_u8();
  return {{batch.indices().begin(), batch.indices().end()}, {pixels.begin(), pixels.end()}};
}

std::vector<Delivered> rest_of_epoch(Loader& loader) {
  std::vector<Delivered> batches;
  while (std::optional<Batch> batch = loader.next()) batches.push_back(delivered(*batch));
  return batches;
}

// As a training loop: the previous batch is held while the next one is asked for, so a ring of
// prefetch_batches=2 has no slot for the read after the batch's own. With `release_after`,
// another thread lets the previous batch go that long after next() is called.
std::vector<Delivered> rest_holding_the_previous(
    Loader& loader, std::optional<std::chrono::microseconds> release_after = std::nullopt) {
  std::vector<Delivered> batches;
  std::optional<Batch> previous;
  for (;;) {
    std::thread releaser;
    if (release_after) {
      releaser = std::thread([&previous, &release_after] {
        std::this_thread::sleep_for(*release_after);
        previous.reset();
      });
    }
    std::optional<Batch> batch = loader.next();
    if (releaser.joinable()) releaser.join();
    if (!batch) return batches;
    batches.push_back(delivered(*batch));
    previous = std::move(batch);
  }
}

// One class of 30 samples in name order (shuffle none keeps it), batch 4: read 0 holds one bad
// sample, read 1 three bad ones and a good one (which batch 0 takes: read 1 is used up), read 5
// two bad ones, and the last read (28, 29) a bad one.
class FullBatchesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string text = "not an image";
    for (int i = 0; i < 30; ++i) {
      char name[32];
      std::snprintf(name, sizeof(name), "class_0/%03d.jpg", i);
      if (kBad.count(i) != 0) {
        write_file(dir_ / name, {text.begin(), text.end()});
      } else {
        write_file(dir_ / name, small_jpeg(static_cast<std::uint64_t>(i)));
      }
    }
  }

  LoaderOptions options(int workers) const {
    LoaderOptions o;
    o.source = dir_.path().string();
    o.batch_size = 4;
    o.num_workers = workers;
    o.transform.size = 16;
    o.on_bad = BadInputPolicy::kSkip;
    o.shuffle = ShuffleMode::kNone;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }

  std::set<int> kBad = {2, 4, 5, 7, 21, 22, 29};
  TempDir dir_;
};

TEST_F(FullBatchesTest, SkippedSamplesAreReplacedByTheNextOnesOfTheEpoch) {
  Loader loader(options(2));
  const std::vector<Delivered> batches = rest_of_epoch(loader);
  // 30 samples: 7 batches of 4 and one of 2, as without skips.
  ASSERT_EQ(batches.size(), 8u);
  for (std::size_t b = 0; b < batches.size(); ++b) {
    EXPECT_EQ(batches[b].indices.size(), b + 1 < batches.size() ? 4u : 2u) << "batch " << b;
  }
  // Batch 0: its read's good samples in their places, the hole filled by read 1's good one.
  EXPECT_EQ(batches[0].indices, (std::vector<std::uint32_t>{0, 1, 3, 6}));
  // Batch 1 begins with read 2, whole.
  EXPECT_EQ(batches[1].indices, (std::vector<std::uint32_t>{8, 9, 10, 11}));
  // Batch 5 ends the epoch's reads with 28 and takes the epoch's start (0) for the last place.
  EXPECT_EQ(batches[5].indices, (std::vector<std::uint32_t>{28, 0, 26, 27}));
  // Every good sample once, and the 7 places the skips left: the epoch's first 7 good samples.
  const std::set<std::uint32_t> repeated = {0, 1, 3, 6, 8, 9, 10};
  std::multiset<std::uint32_t> seen;
  for (const Delivered& batch : batches) seen.insert(batch.indices.begin(), batch.indices.end());
  for (std::uint32_t i = 0; i < 30; ++i) {
    const std::size_t expected = kBad.count(static_cast<int>(i)) != 0 ? 0 : 1 + repeated.count(i);
    EXPECT_EQ(seen.count(i), expected) << "sample " << i;
  }
  // Each skip counted once, though the epoch's start was read again.
  EXPECT_EQ(loader.stats().skipped, kBad.size());
  EXPECT_EQ(loader.stats().images, 30u);
}

TEST_F(FullBatchesTest, SameBatchesWhateverTheWorkers) {
  Loader serial(options(0));
  const std::vector<Delivered> expected = rest_of_epoch(serial);
  for (int workers : {1, 2}) {
    Loader loader(options(workers));
    EXPECT_EQ(rest_of_epoch(loader), expected) << workers << " workers";
  }
}

TEST_F(FullBatchesTest, ResumeAtAnyBatchGivesTheSameRest) {
  Loader whole(options(2));
  const std::vector<Delivered> expected = rest_of_epoch(whole);
  for (std::size_t taken = 0; taken <= expected.size(); ++taken) {
    Loader first(options(2));
    for (std::size_t b = 0; b < taken; ++b) ASSERT_TRUE(first.next().has_value());
    const std::string saved = first.state().to_json();
    Loader second(options(2));
    second.load_state(LoaderState::from_json(saved));
    const std::vector<Delivered> rest = rest_of_epoch(second);
    EXPECT_EQ(rest, std::vector<Delivered>(expected.begin() + static_cast<std::ptrdiff_t>(taken),
                                           expected.end()))
        << "resumed after " << taken << " batches: " << saved;
  }
}

TEST_F(FullBatchesTest, WithoutPadShardsNothingRepeats) {
  LoaderOptions o = options(2);
  o.pad_shards = false;
  Loader loader(o);
  const std::vector<Delivered> batches = rest_of_epoch(loader);
  std::multiset<std::uint32_t> seen;
  for (const Delivered& batch : batches) seen.insert(batch.indices.begin(), batch.indices.end());
  EXPECT_EQ(seen.size(), 30u - kBad.size());
  for (std::uint32_t i = 0; i < 30; ++i) {
    EXPECT_EQ(seen.count(i), kBad.count(static_cast<int>(i)) != 0 ? 0u : 1u) << "sample " << i;
  }
  // 23 good samples: five full batches, then the epoch's end leaves the sixth with three.
  ASSERT_EQ(batches.size(), 6u);
  EXPECT_EQ(batches.back().indices.size(), 3u);
}

TEST_F(FullBatchesTest, DropLastLeavesSamplesThatMakeUpForSkips) {
  // 30 samples, drop_last: 7 batches, and the 2 samples they leave come first at the end.
  LoaderOptions o = options(2);
  o.drop_last = true;
  Loader loader(o);
  const std::vector<Delivered> batches = rest_of_epoch(loader);
  ASSERT_EQ(batches.size(), 7u);
  std::multiset<std::uint32_t> seen;
  for (const Delivered& batch : batches) {
    EXPECT_EQ(batch.indices.size(), 4u);
    seen.insert(batch.indices.begin(), batch.indices.end());
  }
  EXPECT_EQ(seen.count(28), 1u);  // left by drop_last, it stands in for a skipped sample
  EXPECT_EQ(loader.stats().skipped, kBad.size());
}

TEST_F(FullBatchesTest, ReadsWithoutASlotLendTheirSamples) {
  // With two slots and the previous batch held, every read after a batch's own is lent from:
  // the same batches, and each skip still counted once.
  Loader roomy(options(2));
  const std::vector<Delivered> expected = rest_of_epoch(roomy);
  for (int workers : {0, 1, 2}) {
    LoaderOptions o = options(workers);
    o.prefetch_batches = 2;
    Loader loader(o);
    EXPECT_EQ(rest_holding_the_previous(loader), expected) << workers << " workers";
    EXPECT_EQ(loader.stats().skipped, kBad.size()) << workers << " workers";
    EXPECT_EQ(loader.stats().images, 30u) << workers << " workers";
  }
}

TEST_F(FullBatchesTest, ResumeAfterALoanGivesTheSameRest) {
  LoaderOptions o = options(2);
  o.prefetch_batches = 2;
  Loader whole(o);
  const std::vector<Delivered> expected = rest_holding_the_previous(whole);
  for (std::size_t taken = 0; taken <= expected.size(); ++taken) {
    Loader first(o);
    std::optional<Batch> held;
    for (std::size_t b = 0; b < taken; ++b) {
      held = first.next();
      ASSERT_TRUE(held.has_value());
    }
    const std::string saved = first.state().to_json();
    Loader second(o);
    second.load_state(LoaderState::from_json(saved));
    EXPECT_EQ(rest_holding_the_previous(second),
              std::vector<Delivered>(expected.begin() + static_cast<std::ptrdiff_t>(taken),
                                     expected.end()))
        << "resumed after " << taken << " batches: " << saved;
  }
}

TEST_F(FullBatchesTest, DropLastWithTwoSlotsCountsEverySkipOnce) {
  // The samples drop_last leaves (28 and the bad 29) are lent to the last batch by an extra
  // read that the epoch may end before: its skip is still counted, once.
  LoaderOptions o = options(2);
  o.drop_last = true;
  Loader roomy(o);
  const std::vector<Delivered> expected = rest_of_epoch(roomy);
  o.prefetch_batches = 2;
  for (int run = 0; run < 5; ++run) {
    Loader loader(o);
    EXPECT_EQ(rest_holding_the_previous(loader), expected);
    EXPECT_EQ(loader.stats().skipped, kBad.size());
  }
}

TEST_F(FullBatchesTest, ABatchReleasedByAnotherThreadWhileALoanWaits) {
  // The previous batch is let go by another thread while next() runs, so the read a loan
  // waits for may get a slot and be read by the I/O thread, which may then wait for an extra
  // read: the loan is served there (no hang), and the batches are the same.
  Loader roomy(options(2));
  const std::vector<Delivered> expected = rest_of_epoch(roomy);
  LoaderOptions o = options(2);
  o.prefetch_batches = 2;
  for (int run = 0; run < 20; ++run) {
    Loader loader(o);
    const std::vector<Delivered> batches =
        rest_holding_the_previous(loader, std::chrono::microseconds(50 * (run % 5)));
    EXPECT_EQ(batches, expected) << "run " << run;
    EXPECT_EQ(loader.stats().skipped, kBad.size()) << "run " << run;
  }
}

// Read 2 (8-11) skips two, and read 3 (12-15) has one good sample: batch 2's places need read
// 4 too, which three slots cannot hold while batch 1 is held.
class DeepHolesTest : public FullBatchesTest {
 protected:
  DeepHolesTest() { kBad = {9, 10, 12, 13, 14}; }
};

TEST_F(DeepHolesTest, AThirdReadLendsWhenTheSlotsAreHeld) {
  Loader roomy(options(2));
  const std::vector<Delivered> expected = rest_of_epoch(roomy);
  ASSERT_GE(expected.size(), 3u);
  EXPECT_EQ(expected[2].indices, (std::vector<std::uint32_t>{8, 11, 15, 16}));
  for (std::size_t slots : {2u, 3u}) {
    LoaderOptions o = options(2);
    o.prefetch_batches = slots;
    Loader loader(o);
    EXPECT_EQ(rest_holding_the_previous(loader), expected) << slots << " slots";
  }
}

}  // namespace
}  // namespace feedrate
