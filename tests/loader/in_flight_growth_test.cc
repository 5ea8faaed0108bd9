// When the remote read-ahead doubles its requests in flight (loader/pipeline/in_flight_growth.h):
// once two windows of bytes have arrived, if between the first window and the second the batches
// waited for the store a quarter of the time or more, the requests were nearly all in flight and
// the bodies did not queue on the link; otherwise, and ever after, they stay.
#include "loader/pipeline/in_flight_growth.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

namespace feedrate {
namespace {

using std::chrono::milliseconds;

constexpr unsigned kRequests = 64;
constexpr std::uint64_t kWindow = 64 << 20;

io::FetchStats arrived(double windows, double in_flight = 63.5) {
  io::FetchStats stats;
  stats.bytes = static_cast<std::uint64_t>(windows * kWindow);
  stats.average_in_flight = in_flight;
  return stats;
}

// Polls at the first window (t = 1 s, take() having waited `before`) and at the second (t = 2 s,
// having waited `before` + `between`).
InFlightGrowth run(milliseconds before, milliseconds between, bool queued = false,
                   double in_flight = 63.5) {
  InFlightGrowth growth(kRequests, kWindow);
  const io::Clock::time_point start{};
  growth.observe(arrived(0.5, in_flight), queued, before / 2, start + milliseconds(500));
  growth.observe(arrived(1, in_flight), queued, before, start + milliseconds(1000));
  growth.observe(arrived(1.5, in_flight), queued, before + between / 2, start + milliseconds(1500));
  EXPECT_FALSE(growth.decided());
  growth.observe(arrived(2, in_flight), queued, before + between, start + milliseconds(2000));
  EXPECT_TRUE(growth.decided());
  return growth;
}

TEST(InFlightGrowthTest, ASlowStoreThatTheRequestsBoundGetsTwiceAsMany) {
  // 150 ms to the first byte: the batches waited for the store most of the time.
  const InFlightGrowth growth = run(milliseconds(900), milliseconds(800));
  EXPECT_EQ(growth.requests(), 2 * kRequests);
  EXPECT_EQ(growth.ceiling(), 2 * kRequests);
}

TEST(InFlightGrowthTest, TheFirstWindowsFillDoesNotCount) {
  // Every batch waits while the first window arrives; after it they hardly did (the decodes were
  // the slower), and 0.2 s of 1 s is under a quarter.
  EXPECT_EQ(run(milliseconds(1000), milliseconds(0)).requests(), kRequests);
  EXPECT_EQ(run(milliseconds(1000), milliseconds(200)).requests(), kRequests);
  EXPECT_EQ(run(milliseconds(0), milliseconds(250)).requests(), 2 * kRequests);
}

TEST(InFlightGrowthTest, AFullLinkOrIdleRequestsKeepThem) {
  EXPECT_EQ(run(milliseconds(900), milliseconds(800), true).requests(), kRequests);
  EXPECT_EQ(run(milliseconds(900), milliseconds(800), false, 55).requests(), kRequests);
}

// A start afresh before the choice measures anew from its own first window (whose fill every
// batch waits for), not from a span that holds it.
TEST(InFlightGrowthTest, AStartAfreshMeasuresAnew) {
  InFlightGrowth growth(kRequests, kWindow);
  const io::Clock::time_point start{};
  growth.observe(arrived(1), false, milliseconds(1000), start + milliseconds(1000));
  growth.observe(arrived(1.5), false, milliseconds(1000), start + milliseconds(1500));
  growth.restarted(arrived(1.5).bytes);
  // The new read-ahead's first window: every batch waits.
  growth.observe(arrived(2), false, milliseconds(1500), start + milliseconds(2000));
  EXPECT_FALSE(growth.decided());
  growth.observe(arrived(2.5), false, milliseconds(1900), start + milliseconds(2400));
  EXPECT_FALSE(growth.decided());
  // Its second window: the batches hardly waited (the decodes were the slower).
  growth.observe(arrived(3.5), false, milliseconds(1950), start + milliseconds(3400));
  EXPECT_TRUE(growth.decided());
  EXPECT_EQ(growth.requests(), kRequests);
}

// The requests allowed on average over the store's busy time, before the growth and after it.
TEST(InFlightGrowthTest, TheRequestsAllowedOnAverage) {
  InFlightGrowth growth(kRequests, kWindow);
  const io::Clock::time_point start{};
  io::FetchStats stats = arrived(1);
  growth.observe(stats, false, milliseconds(900), start + milliseconds(1000));
  EXPECT_EQ(growth.allowed_on_average(1), kRequests);
  stats = arrived(2);
  stats.busy_seconds = 2;
  growth.observe(stats, false, milliseconds(1700), start + milliseconds(2000));
  ASSERT_EQ(growth.requests(), 2 * kRequests);
  EXPECT_EQ(growth.allowed_on_average(2), kRequests);  // all of it before the growth
  EXPECT_DOUBLE_EQ(growth.allowed_on_average(8), (64 * 2 + 128 * 6) / 8.0);
}

TEST(InFlightGrowthTest, DecidedOnceAndNeverPastTheMost) {
  InFlightGrowth growth = run(milliseconds(900), milliseconds(0));
  growth.observe(arrived(4), false, milliseconds(3000),
                 io::Clock::time_point{} + milliseconds(4000));
  EXPECT_EQ(growth.requests(), kRequests);
  InFlightGrowth most(1000, kWindow);
  EXPECT_EQ(most.ceiling(), InFlightGrowth::kMostRequests);
  InFlightGrowth zero(0, kWindow);
  EXPECT_EQ(zero.requests(), 1u);
}

}  // namespace
}  // namespace feedrate
