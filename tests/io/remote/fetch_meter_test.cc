// The fetcher's meter with a hand-made clock: busy time, the mean in flight, and the split of
// busy time and arrived bytes by the number of transfers in flight.
#include <gtest/gtest.h>

#include <chrono>

#include "io/remote/fetch_stats.h"

namespace feedrate::io {
namespace {

using std::chrono::milliseconds;

TEST(FetchMeter, BandsOfTransfersInFlight) {
  EXPECT_EQ(in_flight_band(0), 0u);
  EXPECT_EQ(in_flight_band(1), 0u);
  EXPECT_EQ(in_flight_band(2), 1u);
  EXPECT_EQ(in_flight_band(3), 1u);
  EXPECT_EQ(in_flight_band(4), 2u);
  EXPECT_EQ(in_flight_band(63), 5u);
  EXPECT_EQ(in_flight_band(64), 6u);
  EXPECT_EQ(in_flight_band(1024), kInFlightBands - 1);
  EXPECT_EQ(in_flight_band(1u << 20), kInFlightBands - 1);
}

TEST(FetchMeter, SplitsBusyTimeAndArrivedBytesByTransfersInFlight) {
  FetchMeter meter;
  const Clock::time_point t0{};
  meter.set_in_flight(1, t0);
  meter.arrived(100);
  meter.set_in_flight(6, t0 + milliseconds(100));  // 100 ms with 1
  meter.arrived(600);
  meter.arrived(400);
  meter.set_in_flight(5, t0 + milliseconds(300));  // 200 ms with 6
  meter.set_in_flight(0, t0 + milliseconds(400));  // 100 ms with 5
  meter.set_in_flight(2, t0 + milliseconds(900));  // 500 ms idle, not busy
  meter.arrived(50);
  const FetchStats stats = meter.stats(t0 + milliseconds(1000));  // 100 ms with 2, so far
  EXPECT_NEAR(stats.busy_seconds, 0.5, 1e-12);
  EXPECT_NEAR(stats.average_in_flight, (0.1 * 1 + 0.2 * 6 + 0.1 * 5 + 0.1 * 2) / 0.5, 1e-12);
  EXPECT_EQ(stats.peak_in_flight, 6u);
  const auto& bands = stats.by_in_flight;
  EXPECT_NEAR(bands[0].busy_seconds, 0.1, 1e-12);
  EXPECT_EQ(bands[0].bytes, 100u);
  EXPECT_NEAR(bands[1].busy_seconds, 0.1, 1e-12);
  EXPECT_NEAR(bands[1].in_flight_seconds, 0.2, 1e-12);
  EXPECT_EQ(bands[1].bytes, 50u);
  EXPECT_NEAR(bands[2].busy_seconds, 0.3, 1e-12);  // 6 and 5 share the band of 4-7
  EXPECT_NEAR(bands[2].in_flight_seconds, 0.2 * 6 + 0.1 * 5, 1e-12);
  EXPECT_EQ(bands[2].bytes, 1000u);
  for (std::size_t b = 3; b < kInFlightBands; ++b) {
    EXPECT_EQ(bands[b].busy_seconds, 0) << b;
    EXPECT_EQ(bands[b].bytes, 0u) << b;
  }
  // stats() counts the open span without ending it: later, the band of 2 holds more.
  EXPECT_NEAR(meter.stats(t0 + milliseconds(1100)).by_in_flight[1].busy_seconds, 0.2, 1e-12);
}

}  // namespace
}  // namespace feedrate::io
