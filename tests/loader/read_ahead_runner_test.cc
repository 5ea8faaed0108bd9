// The remote read-ahead (loader/pipeline/read_ahead_runner.h) against a scripted HTTP server on
// 127.0.0.1 serving one tar shard: whatever the order and the window, every sample is handed
// over in the order's sequence with its own bytes; storage neighbours among the window's
// samples go as one GET even when the order visits them backwards or interleaved (as
// shuffle=blocks does), and a window smaller than one sample still delivers, one GET a sample.
#include "loader/pipeline/read_ahead_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "feedrate/dataset.h"
#include "io/tar_writer.h"
#include "loader/dataset/remote_settings.h"
#include "tests/io/remote/scripted_server.h"
#include "tests/loader/read_ahead_shard.h"
#include "tests/support/fake_clock.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using io::test_support::requested_range;
using io::test_support::ScriptedServer;

constexpr std::size_t kSamples = testing::kReadAheadSamples;
const auto sample_bytes = testing::read_ahead_sample_bytes;

// The shard, as the server's bytes.
std::string shard_bytes() {
  testing::TempDir dir;
  return testing::write_read_ahead_shard(dir.path() / "shard.tar");
}

// HEAD and ranged GETs of /set/shard.tar; no index.json beside it.
std::string answer(const std::string& shard, const std::string& request) {
  const bool head = request.starts_with("HEAD ");
  if (request.find(" /set/shard.tar ") == std::string::npos) {
    return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  }
  const std::string etag = "ETag: \"v1\"\r\nConnection: close\r\n";
  if (head) {
    return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(shard.size()) + "\r\n" + etag +
           "\r\n";
  }
  const auto [first, last] = requested_range(request);
  return "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(first) + "-" +
         std::to_string(last) + "/" + std::to_string(shard.size()) +
         "\r\nContent-Length: " + std::to_string(last - first + 1) + "\r\n" + etag + "\r\n" +
         shard.substr(first, last - first + 1);
}

class ReadAheadRunnerTest : public ::testing::Test {
 protected:
  ReadAheadRunnerTest()
      : shard_(shard_bytes()),
        server_([this](const std::string& request, std::size_t) {
          record(request);
          if (request.starts_with("GET ")) {
            std::this_thread::sleep_for(std::chrono::milliseconds(get_delay_ms_.load()));
            if (get_advances_.load()) get_clock_.advance(kGetTime);
          }
          return answer(shard_, request);
        }),
        dataset_(Dataset::open(server_.url("/set/shard.tar"))) {}

  // Reads the epoch `order` through a window of `window_bytes`, `batch` samples a take(), with at
  // most `in_flight` GETs at once (0: the settings' default), checks each sample's bytes; returns
  // the GETs the window made.
  std::uint64_t read(const std::vector<std::uint32_t>& order, std::uint64_t window_bytes,
                     std::size_t batch, unsigned in_flight = 0, bool scattered = false) {
    RemoteSettings settings = remote_settings(dataset_.files().front().string());
    if (in_flight != 0) settings.fetch.max_in_flight = in_flight;
    ReadAheadRunner window(dataset_, settings, window_bytes, nullptr, scattered);
    window.start_epoch(order);
    take(window, order, order.size(), batch);
    return window.stats().requests;
  }

  // Takes the first `count` samples of the epoch `order` from `window`, `batch` a take(), and
  // checks each one's bytes.
  static void take(ReadAheadRunner& window, const std::vector<std::uint32_t>& order,
                   std::size_t count, std::size_t batch) {
    std::size_t position = 0;
    while (position < count) {
      const std::size_t n = std::min(batch, count - position);
      window.take(n, [&](const ReadAheadRunner::Sample& sample) {
        EXPECT_EQ(sample.index, order[position + sample.position]);
        EXPECT_TRUE(sample.error.empty()) << sample.error;
        EXPECT_TRUE(testing::are_sample_bytes(sample.index, sample.bytes));
      });
      position += n;
    }
  }

  // The longest ranged GET the server has answered since the last call, in bytes.
  std::size_t longest_get() {
    std::lock_guard lock(mutex_);
    return std::exchange(longest_get_, 0);
  }

  // The ranges the server has answered GETs for since the last call, in the order it got them.
  std::vector<std::pair<std::size_t, std::size_t>> gets() {
    std::lock_guard lock(mutex_);
    return std::exchange(gets_, {});
  }

  void record(const std::string& request) {
    if (!request.starts_with("GET ")) return;
    const auto [first, last] = requested_range(request);
    std::lock_guard lock(mutex_);
    longest_get_ = std::max(longest_get_, last - first + 1);
    gets_.emplace_back(first, last);
  }

  std::mutex mutex_;
  std::size_t longest_get_ = 0;                            // under mutex_
  std::vector<std::pair<std::size_t, std::size_t>> gets_;  // under mutex_
  std::atomic<int> get_delay_ms_{0};  // real time before the server answers a GET
  // Whether the server moves get_clock_ by kGetTime as it answers a GET.
  std::atomic<bool> get_advances_{false};
  static constexpr auto kGetTime = std::chrono::milliseconds(60);
  testing::FakeClock get_clock_;  // outlives server_
  std::string shard_;
  ScriptedServer server_;
  Dataset dataset_;
};

std::vector<std::uint32_t> backwards() {
  std::vector<std::uint32_t> order(kSamples);
  for (std::uint32_t i = 0; i < kSamples; ++i) order[i] = kSamples - 1 - i;
  return order;
}

// Blocks of 4 neighbours, their samples interleaved across 6 blocks (a block shuffle's window).
std::vector<std::uint32_t> interleaved_blocks() {
  std::vector<std::uint32_t> order;
  for (std::uint32_t k = 0; k < 4; ++k) {
    for (std::uint32_t block = 0; block < kSamples / 4; ++block) order.push_back(4 * block + 3 - k);
  }
  return order;
}

TEST_F(ReadAheadRunnerTest, TheIndexIsTheShards) {
  ASSERT_EQ(dataset_.size(), kSamples);
  EXPECT_EQ(dataset_.sample(5).size, sample_bytes(5).size());
}

TEST_F(ReadAheadRunnerTest, StorageNeighboursGoAsOneGetWhateverTheirPlacesInTheOrder) {
  EXPECT_EQ(read(backwards(), std::uint64_t{1} << 30, 5), 1u);
  EXPECT_EQ(read(interleaved_blocks(), std::uint64_t{1} << 30, 7), 1u);
}

TEST_F(ReadAheadRunnerTest, AWindowSmallerThanASampleStillDeliversOneGetASample) {
  EXPECT_EQ(read(backwards(), 1, 5), kSamples);
  EXPECT_EQ(read(interleaved_blocks(), 1, 3), kSamples);
}

TEST_F(ReadAheadRunnerTest, AWindowOfAFewSamplesGroupsThoseItHolds) {
  // About three samples' bytes, one GET at a time: the horizon holds three of the backwards order
  // at a time.
  const std::uint64_t requests = read(backwards(), 3 * 3'000 + 3 * 97 * kSamples, 4, 1);
  EXPECT_GT(requests, 1u);
  EXPECT_LT(requests, kSamples);
}

std::vector<std::uint32_t> storage_order() {
  std::vector<std::uint32_t> order(kSamples);
  for (std::uint32_t i = 0; i < kSamples; ++i) order[i] = i;
  return order;
}

TEST_F(ReadAheadRunnerTest, TheFirstAndLastWindowOfAScatteredOrderGoASampleAGet) {
  // Samples of 3,000 + 97 i bytes; a window of 10,000 holds the first three of the storage order
  // (9,291 bytes) and the last one (5,231; with the one before, 10,365).
  const std::vector<std::uint32_t> order = storage_order();
  const AlonePositions alone = alone_positions(dataset_, order, kSamples, 10'000, true, true);
  EXPECT_EQ(alone.end, 3u);
  EXPECT_EQ(alone.from, kSamples - 1);
  // Read ahead into the next epoch: its last window is grouped; carried over: so is its first.
  std::vector<std::uint32_t> two = order;
  two.insert(two.end(), order.begin(), order.end());
  const AlonePositions carried = alone_positions(dataset_, two, kSamples, 10'000, false, true);
  EXPECT_EQ(carried.end, 0u);
  EXPECT_EQ(carried.from, kSamples);
  const AlonePositions grouped = alone_positions(dataset_, order, kSamples, 10'000, true, false);
  EXPECT_EQ(grouped.end, 0u);
  EXPECT_EQ(grouped.from, kSamples);
}

TEST_F(ReadAheadRunnerTest, AScatteredOrderFetchesItsFirstWindowASampleAGetInItsOrder) {
  // interleaved_blocks() spreads each run of 4 neighbours over the order, as shuffle=blocks
  // does. One GET at a time, so the server sees them in the window's order: grouped, the first
  // GET holds the first sample's whole run; scattered, the first window's samples go one a GET,
  // in the order's sequence, so that its first batch is not held up by every run of the window.
  const std::vector<std::uint32_t> order = interleaved_blocks();
  const std::uint64_t window = 6 * 3'000 + 6 * 97 * kSamples;
  gets();
  const std::uint64_t grouped = read(order, window, 4, 1);
  const auto first_get = gets().front();
  EXPECT_GT(first_get.second - first_get.first + 1, dataset_.sample(order[0]).size);
  const std::uint64_t scattered = read(order, window, 4, 1, true);
  const auto ranges = gets();
  const AlonePositions alone = alone_positions(dataset_, order, kSamples, window, true, true);
  ASSERT_GT(alone.end, 1u);
  ASSERT_GE(ranges.size(), alone.end);
  for (std::size_t i = 0; i < alone.end; ++i) {
    const SampleRef& ref = dataset_.sample(order[i]);
    EXPECT_EQ(ranges[i].first, ref.offset) << "GET " << i;
    EXPECT_EQ(ranges[i].second, ref.offset + ref.size - 1) << "GET " << i;
  }
  EXPECT_GT(scattered, grouped);
  EXPECT_LT(scattered, kSamples);  // between its ends, neighbours still go together
}

TEST_F(ReadAheadRunnerTest, GroupsLeaveTheWindowRoomForEveryGetInFlight) {
  // About ten samples' bytes: one GET at a time may take a run of the window's size (the first
  // group is formed with the whole window free); four at a time take at most a quarter of it
  // each (or one sample), so that all four are in flight (over a long round trip one connection
  // carries a fraction of the link).
  const std::uint64_t window = 10 * (3'000 + 97 * kSamples);
  const std::size_t largest_sample = sample_bytes(kSamples - 1).size();
  longest_get();
  read(storage_order(), window, 4, 1);
  EXPECT_GT(longest_get(), window / 4);
  read(storage_order(), window, 4, 4);
  EXPECT_LE(longest_get(), std::max<std::size_t>(window / 4, largest_sample));
}

TEST_F(ReadAheadRunnerTest, ATakenSampleLetsItsBytesGoWhileItsNeighboursWait) {
  // The interleaved order spreads each run of 4 neighbours over the whole epoch, and the window
  // fetches the shard as one GET: held as one range until its last sample were taken, the run
  // of a shuffle=blocks window would keep the read-ahead's room until that window's end.
  const std::vector<std::uint32_t> order = interleaved_blocks();
  ReadAheadRunner window(dataset_, remote_settings(dataset_.files().front().string()),
                         std::uint64_t{1} << 30, nullptr);
  window.start_epoch(order);
  std::size_t left = 0;
  for (std::size_t i = 0; i < kSamples; ++i) left += sample_bytes(i).size();
  for (std::size_t position = 0; position < order.size(); ++position) {
    window.take(1, [&](const ReadAheadRunner::Sample& sample) {
      EXPECT_EQ(sample.bytes.size(), sample_bytes(sample.index).size());
    });
    left -= sample_bytes(order[position]).size();
    EXPECT_EQ(window.held_bytes(), left) << "after " << position + 1 << " samples";
  }
  EXPECT_EQ(window.stats().requests, 1u);
}

// The next epoch's GETs go out while this epoch is taken, and the next start_epoch() given
// the samples promised keeps them: four epochs of the whole shard cost one GET each, each made
// before its epoch starts, also when the next epoch's GET is still in flight as it starts (the
// server answers a GET after 100 ms) (each epoch's samples are storage neighbours, the same samples
// of the two epochs are not grouped together).
TEST_F(ReadAheadRunnerTest, TheNextEpochIsReadAheadAndKept) {
  const std::vector<std::uint32_t> first = storage_order();
  const std::vector<std::uint32_t> second = interleaved_blocks();
  get_delay_ms_ = 100;
  ReadAheadRunner window(dataset_, remote_settings(dataset_.files().front().string()),
                         std::uint64_t{1} << 30, nullptr);
  window.start_epoch(first, second);
  take(window, first, first.size(), 5);
  EXPECT_GT(window.held_bytes(), 0u);  // the next epoch's, asked for once this epoch's arrived
  window.start_epoch(second, backwards());
  take(window, second, second.size(), 7);
  EXPECT_GT(window.held_bytes(), 0u);  // the third epoch's, read ahead in turn
  window.start_epoch(backwards(), first);
  take(window, backwards(), kSamples, 4);
  EXPECT_GT(window.held_bytes(), 0u);  // the fourth epoch's
  window.start_epoch(first);
  take(window, first, first.size(), 6);
  EXPECT_EQ(window.stats().requests, 4u);  // one fetcher throughout: nothing started afresh
  EXPECT_EQ(window.held_bytes(), 0u);
}

// A window of a few samples goes on into the next epoch as its room allows, and a group may
// hold samples of both epochs: every sample still arrives with its own bytes, and the window
// ends empty.
TEST_F(ReadAheadRunnerTest, ASmallWindowCarriesOverIntoTheNextEpoch) {
  const std::vector<std::uint32_t> first = interleaved_blocks();
  const std::vector<std::uint32_t> second = storage_order();
  ReadAheadRunner window(dataset_, remote_settings(dataset_.files().front().string()),
                         4 * (3'000 + 97 * kSamples), nullptr);
  window.start_epoch(first, second);
  take(window, first, first.size(), 3);
  window.start_epoch(second);
  take(window, second, second.size(), 3);
  EXPECT_EQ(window.held_bytes(), 0u);
}

// An epoch other than the one promised, or a promise made before the previous epoch was taken to
// its end, starts afresh: what was read ahead is dropped and the new epoch's samples are fetched.
TEST_F(ReadAheadRunnerTest, AnEpochOtherThanTheOnePromisedStartsAfresh) {
  ReadAheadRunner window(dataset_, remote_settings(dataset_.files().front().string()),
                         std::uint64_t{1} << 30, nullptr);
  window.start_epoch(storage_order(), backwards());
  take(window, storage_order(), kSamples, 6);
  window.start_epoch(interleaved_blocks(), storage_order());  // not backwards()
  take(window, interleaved_blocks(), kSamples / 2, 6);
  window.start_epoch(storage_order());  // promised, but the epoch before was half taken
  take(window, storage_order(), kSamples, 6);
  EXPECT_EQ(window.held_bytes(), 0u);
  // The store's figures run on over the fetchers of every start: the first and the last epoch
  // each fetched every sample.
  std::uint64_t samples_bytes = 0;
  for (std::uint32_t i = 0; i < kSamples; ++i) samples_bytes += dataset_.sample(i).size;
  const io::FetchStats stats = window.stats();
  EXPECT_GE(stats.bytes, 2 * samples_bytes);
  EXPECT_GE(stats.requests, 3u);
  double band_seconds = 0;
  for (const io::InFlightBand& band : stats.by_in_flight) band_seconds += band.busy_seconds;
  EXPECT_NEAR(band_seconds, stats.busy_seconds, 1e-9);
}

// Samples that lie apart in the shard (a stride of 5 through it), so that no two in a window of
// four go as one GET: each GET is a sample, as under a full shuffle of a large set.
std::vector<std::uint32_t> strided() {
  std::vector<std::uint32_t> order(kSamples);
  for (std::uint32_t i = 0; i < kSamples; ++i) order[i] = (5 * i) % kSamples;
  return order;
}

// A store that takes 60 ms of the runner's clock to answer each GET, which it spends while the
// GET is in flight: the store's busy time is 60 ms a GET on that clock, however long the GETs
// took in real time. (When the requests in flight double is the planner's, tested on its own:
// read_ahead_planner_test.cc, in_flight_growth_test.cc.)
TEST_F(ReadAheadRunnerTest, TheStoresFiguresAreTimedOnTheRunnersClock) {
  get_advances_ = true;
  RemoteSettings settings = remote_settings(dataset_.files().front().string());
  settings.fetch.max_in_flight = 1;
  ReadAheadRunner window(dataset_, settings, 4 * (3'000 + 97 * kSamples), nullptr, false,
                         get_clock_);
  window.start_epoch(strided());
  take(window, strided(), kSamples, 1);
  const io::FetchStats stats = window.stats();
  EXPECT_EQ(stats.requests, kSamples);  // no two of a window are neighbours
  EXPECT_NEAR(stats.busy_seconds, std::chrono::duration<double>(kGetTime).count() * kSamples, 1e-9);
}

}  // namespace
}  // namespace feedrate
