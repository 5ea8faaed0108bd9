// The remote read-ahead's planner (loader/pipeline/read_ahead_planner.h) on its own: no thread,
// no clock, no fetcher. The test plays the fetcher: it scatters a shard's bytes into the
// planner's pieces (io/remote/fetch_destination.h) and reports each GET's arrival, so that
// grouping, the window's bound, the requests in flight, the first window of a scattered order,
// the crossing into the next epoch, failures and the reuse of buffers are checked step by step.
#include "loader/pipeline/read_ahead_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "tests/loader/read_ahead_shard.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using Step = ReadAheadPlanner::Step;

constexpr std::uint32_t kSamples = testing::kReadAheadSamples;
// With a window far smaller than 64 requests of the window's share each, every sample is a GET
// of its own (as a full shuffle of a dataset far larger than the window makes them).
constexpr unsigned kManyRequests = 64;

class ReadAheadPlannerTest : public ::testing::Test {
 protected:
  ReadAheadPlannerTest()
      : shard_(testing::write_read_ahead_shard(dir_ / "shard.tar")),
        dataset_(Dataset::open(dir_ / "shard.tar")) {}

  std::uint64_t size_of(std::uint32_t index) const { return dataset_.sample(index).size; }

  // Plays the fetcher for `fetch`: its range's bytes land in its pieces, then it arrives.
  void serve(ReadAheadPlanner& planner, const ReadAheadPlanner::Fetch& fetch) const {
    const io::FetchDestination destination(fetch.scatter);
    const auto* first = reinterpret_cast<const std::byte*>(shard_.data() + fetch.offset);
    destination.deliver(0, {first, static_cast<std::size_t>(destination.size())});
    planner.arrived(fetch.id, "");
  }

  // Every GET the planner asks for now with `pending` pending.
  static std::vector<ReadAheadPlanner::Fetch> fetches(ReadAheadPlanner& planner,
                                                      std::size_t pending = 0) {
    std::vector<ReadAheadPlanner::Fetch> all;
    ReadAheadPlanner::Fetch fetch;
    while (planner.next(pending + all.size(), fetch) == Step::kFetch) all.push_back(fetch);
    return all;
  }

  // Takes `count` samples, checking that each is `order`'s next with its own bytes.
  static void take(ReadAheadPlanner& planner, const std::vector<std::uint32_t>& order,
                   std::size_t& taken, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      ASSERT_TRUE(planner.ready(i)) << "sample " << taken + i;
      const ReadAheadSample sample = planner.sample(i);
      EXPECT_EQ(sample.index, order[taken + i]);
      EXPECT_TRUE(sample.error.empty()) << sample.error;
      EXPECT_TRUE(testing::are_sample_bytes(sample.index, sample.bytes));
      planner.taken(i);
    }
    planner.advance(count);
    taken += count;
  }

  testing::TempDir dir_;
  std::string shard_;
  Dataset dataset_;
};

std::vector<std::uint32_t> backwards() {
  std::vector<std::uint32_t> order(kSamples);
  for (std::uint32_t i = 0; i < kSamples; ++i) order[i] = kSamples - 1 - i;
  return order;
}

TEST_F(ReadAheadPlannerTest, StorageNeighboursGoAsOneGetWithTheGapsDropped) {
  ReadAheadPlanner planner(dataset_, kManyRequests, 64 << 20, nullptr, false);
  const std::vector<std::uint32_t> order = backwards();
  planner.start(order, {});
  const auto all = fetches(planner);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].offset, dataset_.sample(0).offset);
  ASSERT_EQ(all[0].scatter.size(), kSamples);  // a piece a sample, the .cls members dropped
  std::uint64_t held = 0;
  for (std::uint32_t i = 0; i < kSamples; ++i) held += size_of(i);
  EXPECT_EQ(planner.held_bytes(), held);
  EXPECT_FALSE(planner.ready(0)) << "in flight";
  serve(planner, all[0]);
  std::size_t taken = 0;
  take(planner, order, taken, 5);
  EXPECT_EQ(planner.held_bytes(),
            held - size_of(23) - size_of(22) - size_of(21) - size_of(20) - size_of(19))
      << "each taken sample lets its bytes go while its neighbours wait";
  take(planner, order, taken, kSamples - 5);
  EXPECT_EQ(planner.held_bytes(), 0u);
  EXPECT_TRUE(fetches(planner).empty()) << "nothing fetched twice";
}

TEST_F(ReadAheadPlannerTest, TheWindowBoundsTheBytesAskedForSaveTheOneWaitedFor) {
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < kSamples; i += 2) order.push_back(i);
  const std::uint64_t window = size_of(0) + size_of(2) + size_of(4);
  ReadAheadPlanner planner(dataset_, kManyRequests, window, nullptr, false);
  planner.start(order, {});
  const auto first = fetches(planner);
  ASSERT_EQ(first.size(), 3u) << "three samples fill the window";
  for (const auto& fetch : first) EXPECT_EQ(fetch.scatter.size(), 1u);
  EXPECT_EQ(planner.held_bytes(), window);
  for (const auto& fetch : first) serve(planner, fetch);
  std::size_t taken = 0;
  take(planner, order, taken, 1);
  EXPECT_EQ(fetches(planner).size(), 0u) << "the next sample does not fit in the room left";
  take(planner, order, taken, 2);
  // Taking made room: the window fills again, and the sample take() waits for goes whatever the
  // window holds.
  while (taken < order.size()) {
    if (!planner.ready(0)) {
      planner.want(0);
      const auto more = fetches(planner);
      ASSERT_FALSE(more.empty()) << "the waited-for sample is always asked for";
      for (const auto& fetch : more) serve(planner, fetch);
    }
    take(planner, order, taken, 1);
  }
  EXPECT_EQ(planner.held_bytes(), 0u);
}

TEST_F(ReadAheadPlannerTest, NoMoreGetsThanTheRequestsAllowedArePending) {
  // A scattered order's first window goes a sample a GET: 2 requests allowed, 2 asked for.
  ReadAheadPlanner planner(dataset_, 2, 64 << 20, nullptr, true);
  planner.start(backwards(), {});
  EXPECT_EQ(planner.requests(), 2u);
  EXPECT_EQ(fetches(planner, 0).size(), 2u);
  EXPECT_TRUE(fetches(planner, 2).empty());
}

TEST_F(ReadAheadPlannerTest, AScatteredOrdersFirstWindowGoesASampleAGetInItsOrder) {
  const std::vector<std::uint32_t> order = backwards();
  std::uint64_t window = 0;
  for (std::uint32_t i = 0; i < 6; ++i) window += size_of(order[i]);
  ReadAheadPlanner planner(dataset_, 64, window, nullptr, true);
  planner.start(order, {});
  const auto all = fetches(planner);
  ASSERT_GE(all.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(all[k].scatter.size(), 1u) << "GET " << k;
    EXPECT_EQ(all[k].offset, dataset_.sample(order[k]).offset) << "in delivery order";
  }
}

TEST_F(ReadAheadPlannerTest, TheNextEpochWaitsForThisOnesGetsAndIsKept) {
  const std::vector<std::uint32_t> first{0, 4, 8};
  const std::vector<std::uint32_t> second{12, 16, 20};
  std::uint64_t window = 0;
  for (const std::uint32_t i : {0, 4, 8, 12, 16, 20}) window += size_of(i);
  ReadAheadPlanner planner(dataset_, kManyRequests, window, nullptr, false);
  planner.start(first, second);
  auto now = fetches(planner);
  ASSERT_EQ(now.size(), 3u) << "the next epoch's GETs wait for this epoch's to arrive";
  for (const auto& fetch : now) serve(planner, fetch);
  const auto ahead = fetches(planner);
  EXPECT_EQ(ahead.size(), 3u) << "then the next epoch is read ahead";
  std::size_t taken = 0;
  take(planner, first, taken, first.size());
  EXPECT_TRUE(planner.continues_with(second));
  EXPECT_FALSE(planner.continues_with({12, 20, 16}));
  planner.begin_next({});
  for (const auto& fetch : ahead) serve(planner, fetch);
  std::size_t next_taken = 0;
  take(planner, second, next_taken, second.size());
  EXPECT_TRUE(fetches(planner).empty()) << "nothing fetched twice";
}

TEST_F(ReadAheadPlannerTest, AFailedGetDeliversEachOfItsSamplesAsTheErrorNamingIt) {
  const std::vector<std::uint32_t> order{3, 4};
  ReadAheadPlanner planner(dataset_, kManyRequests, 64 << 20, nullptr, false);
  planner.start(order, {});
  const auto all = fetches(planner);
  ASSERT_EQ(all.size(), 1u);
  planner.arrived(all[0].id, "GET https://host/shard.tar: HTTP 404");
  EXPECT_EQ(planner.held_bytes(), 0u);
  for (std::size_t i = 0; i < order.size(); ++i) {
    ASSERT_TRUE(planner.ready(i));
    const ReadAheadSample sample = planner.sample(i);
    EXPECT_TRUE(sample.bytes.empty());
    EXPECT_NE(sample.error.find(dataset_.describe(order[i])), std::string::npos) << sample.error;
    EXPECT_NE(sample.error.find("HTTP 404"), std::string::npos) << sample.error;
    planner.taken(i);
  }
}

TEST_F(ReadAheadPlannerTest, BuffersAreReusedSoTheSteadyStateAllocatesNothingPerSample) {
  // A sample a GET, six samples' room, a sample taken at a time, over four epochs.
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < kSamples; i += 2) order.push_back(i);
  const std::uint64_t window = 6 * size_of(kSamples - 2);
  ReadAheadPlanner planner(dataset_, kManyRequests, window, nullptr, false);
  std::uint64_t made_by_the_second_epoch = 0;
  for (int epoch = 0; epoch < 4; ++epoch) {
    planner.start(order, {});
    std::size_t taken = 0;
    while (taken < order.size()) {
      planner.want(0);
      for (const auto& fetch : fetches(planner)) serve(planner, fetch);
      take(planner, order, taken, 1);
    }
    if (epoch == 1) made_by_the_second_epoch = planner.buffers_made();
  }
  // The first epoch's sizes grow (sample i has 3,000 + 97 i bytes): its small buffers fit none
  // of its later samples, and the second epoch makes the few its small samples then miss.
  EXPECT_LT(made_by_the_second_epoch, 2 * order.size());
  EXPECT_EQ(planner.buffers_made(), made_by_the_second_epoch)
      << "the third and fourth epochs reuse the buffers made before";
}

// The planner doubles its requests when the store binds the batches: its growth reads the
// fetcher's figures and take()'s waits as the runner passes them in, on whatever clock the
// runner has (here: time points made up by the test).
TEST_F(ReadAheadPlannerTest, ASlowStoreThatTheBatchesWaitForDoublesTheRequests) {
  constexpr unsigned kRequests = 2;
  const std::uint64_t window = 4 * size_of(kSamples - 1);
  const auto grow = [&](std::chrono::milliseconds waited_per_half_window) {
    ReadAheadPlanner planner(dataset_, kRequests, window, nullptr, false);
    planner.start(backwards(), {});
    const io::Clock::time_point start{};
    io::FetchStats stats;
    stats.average_in_flight = kRequests;
    for (int half = 1; half <= 4; ++half) {
      stats.bytes = static_cast<std::uint64_t>(half) * window / 2;
      planner.waited(waited_per_half_window);
      planner.observe(stats, start + half * std::chrono::milliseconds(500));
    }
    return planner.requests();
  };
  EXPECT_EQ(grow(std::chrono::milliseconds(400)), 2 * kRequests) << "waited 80% of the time";
  EXPECT_EQ(grow(std::chrono::milliseconds(50)), kRequests) << "waited 10% of the time";
}

}  // namespace
}  // namespace feedrate
