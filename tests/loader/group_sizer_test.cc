// The size of the remote read-ahead's grouped GETs (loader/pipeline/group_sizer.h), from the
// figures of a first window's GETs: a link that queued their bodies shrinks the groups to two
// round trips of its rate per request in flight; bodies that came at once (a wait of less than a
// fifth of the time to first byte or 5 ms), too few GETs, or no
// first window keep the window's share; the choice is made once.
#include "loader/pipeline/group_sizer.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace feedrate {
namespace {

constexpr unsigned kInFlight = 64;
constexpr std::uint64_t kShare = 2 << 20;
constexpr std::uint64_t kWindow = kShare * kInFlight;

// `attempts` GETs of 100,000 bytes that took `get_ms` each, `p10_ms`/`p50_ms` to the first
// byte, at `rate` bytes a second in all.
io::FetchStats figures(std::uint64_t attempts, double get_ms, double p10_ms, double p50_ms,
                       double rate) {
  io::FetchStats stats;
  stats.attempts = attempts;
  stats.bytes = attempts * 100'000;
  stats.bytes_per_second_per_connection = 100'000 / (get_ms / 1e3);
  stats.first_byte_p10_ms = p10_ms;
  stats.first_byte_p50_ms = p50_ms;
  stats.bytes_per_second = rate;
  return stats;
}

TEST(GroupSizerTest, AFullLinkShrinksTheGroupsToTwoRoundTripsOfItsRate) {
  // 64 GETs in flight on a 117 MB/s link: each body waits 53 ms against 40 ms to the first byte.
  GroupSizer sizer(kInFlight, kWindow);
  sizer.observe(figures(kInFlight, 53, 36, 40, 117e6), false);
  EXPECT_FALSE(sizer.decided());
  EXPECT_EQ(sizer.most(), kShare);
  sizer.observe(figures(kInFlight, 53, 36, 40, 117e6), true);
  EXPECT_TRUE(sizer.decided());
  EXPECT_EQ(sizer.link_full(), true);
  EXPECT_NEAR(static_cast<double>(sizer.most()), 2 * 117e6 * 0.036 / kInFlight, 1);
  // Made once: later figures do not change it.
  sizer.observe(figures(4 * kInFlight, 144, 142, 143, 43e6), true);
  EXPECT_NEAR(static_cast<double>(sizer.most()), 2 * 117e6 * 0.036 / kInFlight, 1);
}

TEST(GroupSizerTest, BodiesThatCameAtOnceKeepTheShare) {
  // Loopback: a tenth of a millisecond to the first byte, and twice that in all, is no queue.
  GroupSizer loopback(kInFlight, kWindow);
  loopback.observe(figures(kInFlight, 0.2, 0.1, 0.1, 1e9), true);
  EXPECT_EQ(loopback.most(), kShare);
  // A 143 ms round trip: each GET ends about when its first byte arrives.
  GroupSizer sizer(kInFlight, kWindow);
  sizer.observe(figures(kInFlight, 150, 142, 143, 43e6), true);
  EXPECT_TRUE(sizer.decided());
  EXPECT_EQ(sizer.link_full(), false);
  EXPECT_EQ(sizer.most(), kShare);
}

TEST(GroupSizerTest, TooFewGetsOrNoFirstWindowKeepTheShare) {
  GroupSizer few(kInFlight, kWindow);
  few.observe(figures(kInFlight - 1, 53, 36, 40, 117e6), true);
  EXPECT_TRUE(few.decided());
  EXPECT_FALSE(few.link_full().has_value());  // no evidence either way
  EXPECT_EQ(few.most(), kShare);
  // One request in flight: a mean needs kLeastGets GETs all the same.
  GroupSizer one(1, kShare);
  one.observe(figures(GroupSizer::kLeastGets - 1, 53, 36, 40, 117e6), true);
  EXPECT_EQ(one.most(), kShare);
  GroupSizer none(kInFlight, kWindow);
  none.observe(io::FetchStats{}, true);
  EXPECT_EQ(none.most(), kShare);
}

TEST(GroupSizerTest, NeverLargerThanTheShare) {
  // A slow link's two round trips per request would exceed a small window's share.
  GroupSizer sizer(kInFlight, 100'000 * kInFlight);
  sizer.observe(figures(kInFlight, 400, 200, 250, 1e9), true);
  EXPECT_EQ(sizer.most(), 100'000u);
}

// Twice the requests in flight (loader/pipeline/in_flight_growth.h) halve the share; a smaller
// bound that a full link set stays.
TEST(GroupSizerTest, TheShareFollowsTheRequestsInFlight) {
  GroupSizer sizer(kInFlight, kWindow);
  sizer.observe(figures(kInFlight, 150, 142, 143, 43e6), true);
  sizer.requests_changed(2 * kInFlight);
  EXPECT_EQ(sizer.most(), kShare / 2);
  GroupSizer full(kInFlight, kWindow);
  full.observe(figures(kInFlight, 53, 36, 40, 117e6), true);
  const std::uint64_t cap = full.most();
  full.requests_changed(2 * kInFlight);
  EXPECT_EQ(full.most(), cap);
}

TEST(GroupSizerTest, QueuedWhenAGetOutlastsItsFirstByteByAFifthAnd5Ms) {
  EXPECT_TRUE(GroupSizer::queued(figures(64, 53, 36, 40, 117e6)));
  EXPECT_FALSE(GroupSizer::queued(figures(64, 47, 36, 40, 117e6)));   // 7 ms: under a fifth
  EXPECT_FALSE(GroupSizer::queued(figures(64, 14.5, 9, 10, 117e6)));  // a fifth, not 5 ms
  EXPECT_FALSE(GroupSizer::queued(io::FetchStats{}));                 // nothing measured
}

}  // namespace
}  // namespace feedrate
