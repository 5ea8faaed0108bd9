// Tests for io::parse_throttle, io::describe and io::Throttle: the disk classes and explicit
// limits parse to the documented figures, bad text is rejected naming it, and the token buckets
// and latency delay operations by exactly what the limits imply, on a fake clock (no sleeps, no
// wall-clock bounds).

#include "io/throttle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "io/disk_class.h"
#include "tests/support/fake_clock.h"

namespace feedrate::io {
namespace {

using testing::FakeClock;
using namespace std::chrono_literals;

void expect_spec(const ThrottleSpec& spec, double mb_per_s, double iops, double latency_us) {
  EXPECT_DOUBLE_EQ(spec.mb_per_s, mb_per_s);
  EXPECT_DOUBLE_EQ(spec.iops, iops);
  EXPECT_DOUBLE_EQ(spec.latency_us, latency_us);
}

TEST(ParseThrottleTest, DiskClasses) {
  expect_spec(parse_throttle("hdd"), 200, 150, 4000);
  expect_spec(parse_throttle("sata-ssd"), 500, 50'000, 100);
  expect_spec(parse_throttle("nvme"), 2400, 400'000, 20);
  EXPECT_TRUE(parse_throttle("hdd").limited());
}

TEST(ParseThrottleTest, EveryDiskClassIsAThrottle) {
  expect_spec(parse_throttle("network"), 1200, 0, 500);
  for (const DiskClass& c : disk_classes()) {
    const ThrottleSpec spec = parse_throttle(c.name);
    expect_spec(spec, c.spec.mb_per_s, c.spec.iops, c.spec.latency_us);
  }
}

TEST(ParseThrottleTest, ExplicitLimits) {
  expect_spec(parse_throttle("100"), 100, 0, 0);
  expect_spec(parse_throttle("100,2000"), 100, 2000, 0);
  expect_spec(parse_throttle("100,2000,50"), 100, 2000, 50);
  expect_spec(parse_throttle("1.5e3,0,0.5"), 1500, 0, 0.5);
  expect_spec(parse_throttle("0,0,250"), 0, 0, 250);
  expect_spec(parse_throttle("0"), 0, 0, 0);
  EXPECT_FALSE(parse_throttle("0,0,0").limited());
}

TEST(ParseThrottleTest, BadTextIsRejectedNamingIt) {
  for (const std::string text : {"", "fast", "HDD", "ssd", "100,", ",5", "1,2,3,4", "-5", "5,-1",
                                 "inf", "nan", "100 ", " 100", "1e999", "100MB", "1,,2"}) {
    SCOPED_TRACE("text '" + text + "'");
    try {
      parse_throttle(text);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("\"" + text + "\""), std::string::npos) << e.what();
    }
  }
}

TEST(DescribeThrottleTest, NamesTheLimitsThatApply) {
  EXPECT_EQ(describe(ThrottleSpec{}), "unlimited");
  EXPECT_EQ(describe(parse_throttle("hdd")), "200 MB/s, 150 IOPS, 4000 us latency");
  EXPECT_EQ(describe(parse_throttle("nvme")), "2400 MB/s, 400000 IOPS, 20 us latency");
  EXPECT_EQ(describe(parse_throttle("2.5")), "2.5 MB/s");
  EXPECT_EQ(describe(parse_throttle("0,0,7")), "7 us latency");
}

TEST(ThrottleTest, InvalidLimitsAreRejected) {
  EXPECT_THROW(Throttle(ThrottleSpec{-1, 0, 0}), std::invalid_argument);
  EXPECT_THROW(Throttle(ThrottleSpec{0, -1, 0}), std::invalid_argument);
  EXPECT_THROW(Throttle(ThrottleSpec{0, 0, std::nan("")}), std::invalid_argument);
  EXPECT_NO_THROW(Throttle(ThrottleSpec{}));
}

// The throttle's times are its clock's: on a fake one that does not move unless told, every
// due time is exact.
TEST(ThrottleTest, ByteRateSpacesOperations) {
  // 20 MB at 100 MB/s: the bucket starts empty, so megabyte k is due k x 10 ms in.
  FakeClock clock;
  Throttle throttle({100, 0, 0}, clock);
  for (int k = 1; k <= 20; ++k) EXPECT_EQ(throttle.admit(1'000'000), FakeClock::kStart + k * 10ms);
}

TEST(ThrottleTest, OperationRateSpacesOperations) {
  FakeClock clock;
  Throttle throttle({0, 1000, 0}, clock);
  for (int k = 1; k <= 200; ++k) EXPECT_EQ(throttle.admit(1), FakeClock::kStart + k * 1ms);
}

TEST(ThrottleTest, TheSlowerBucketSetsTheDueTime) {
  FakeClock clock;
  Throttle bytes_bound({100, 1000, 0}, clock);  // 10 ms a MB, 1 ms an operation
  EXPECT_EQ(bytes_bound.admit(1'000'000), FakeClock::kStart + 10ms);
  EXPECT_EQ(bytes_bound.admit(1'000'000), FakeClock::kStart + 20ms);
  Throttle operations_bound({100, 10, 0}, clock);  // 10 ms a MB, 100 ms an operation
  EXPECT_EQ(operations_bound.admit(1'000'000), FakeClock::kStart + 100ms);
  EXPECT_EQ(operations_bound.admit(1'000'000), FakeClock::kStart + 200ms);
}

TEST(ThrottleTest, LatencyDelaysEveryOperationWithoutSerializingThem) {
  FakeClock clock;
  Throttle timed({0, 0, 50'000}, clock);
  for (int k = 0; k < 100; ++k) {
    // Operations in flight together each wait the latency once, not one after another.
    EXPECT_EQ(timed.admit(4096), clock.now() + 50ms);
    clock.advance(1ms);
  }
}

TEST(ThrottleTest, IdleTimeSavesAtMostTheBurst) {
  FakeClock clock;
  Throttle throttle({100, 0, 0}, clock);
  throttle.admit(1);  // the buckets start empty here
  clock.advance(300ms);
  // 10 MB take 0.1 s at 100 MB/s; saved tokens cover kBurst (50 ms) of it, no more.
  EXPECT_EQ(throttle.admit(10'000'000), clock.now() + 100ms - Throttle::kBurst);
}

TEST(ThrottleTest, SavedOperationsLeaveTheLatencyOnly) {
  FakeClock clock;
  Throttle throttle({0, 1000, 250}, clock);  // 1 ms an operation, 250 us each
  EXPECT_EQ(throttle.admit(1), FakeClock::kStart + 1ms);
  EXPECT_EQ(throttle.admit(1), FakeClock::kStart + 2ms);
  clock.advance(100ms);
  // kBurst (50 ms) of operations saved up: the next one is due after its latency only.
  EXPECT_EQ(throttle.admit(1), clock.now() + 250us);
}

TEST(ThrottleTest, TimeBeforeTheFirstOperationSavesNothing) {
  FakeClock clock;
  Throttle throttle({100, 0, 0}, clock);
  clock.advance(100ms);
  EXPECT_EQ(throttle.admit(10'000'000), clock.now() + 100ms);
}

TEST(ThrottleTest, ThreadsShareTheBuckets) {
  FakeClock clock;
  Throttle throttle({100, 0, 0}, clock);
  std::vector<Clock::time_point> last(4, FakeClock::kStart);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&throttle, &last, t] {
      for (int i = 0; i < 50; ++i) last[t] = std::max(last[t], throttle.admit(100'000));
    });
  }
  for (std::thread& thread : threads) thread.join();
  // 4 x 50 x 100 kB = 20 MB in all, each 100 kB paid once: the last is due 0.2 s in.
  EXPECT_EQ(*std::max_element(last.begin(), last.end()), FakeClock::kStart + 200ms);
}

}  // namespace
}  // namespace feedrate::io
