// Tests for io::parse_throttle, io::describe and io::Throttle: the disk classes and explicit
// limits parse to the documented figures, bad text is rejected naming it, and the token buckets
// and latency delay operations by at least what the limits imply (upper bounds are 5x loose:
// the machine running the tests may be small and busy).

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

namespace feedrate::io {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::duration;

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return duration<double>(to - from).count();
}

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

TEST(ThrottleTest, ByteRateSpacesOperations) {
  // 20 MB at 100 MB/s: the bucket starts empty, so the last megabyte is due 0.2 s in.
  const Clock::time_point before = Clock::now();
  Throttle throttle({100, 0, 0});
  Clock::time_point last = before;
  for (int i = 0; i < 20; ++i) {
    const Clock::time_point due = throttle.admit(1'000'000);
    EXPECT_GE(due, last) << "admit went back in time";
    last = due;
  }
  EXPECT_GE(seconds_between(before, last), 0.18);
  EXPECT_LE(seconds_between(before, last), 1.0);
}

TEST(ThrottleTest, OperationRateSpacesOperations) {
  const Clock::time_point before = Clock::now();
  Throttle throttle({0, 1000, 0});
  Clock::time_point last = before;
  for (int i = 0; i < 200; ++i) last = throttle.admit(1);
  EXPECT_GE(seconds_between(before, last), 0.18);
  EXPECT_LE(seconds_between(before, last), 1.0);
}

TEST(ThrottleTest, LatencyDelaysEveryOperationWithoutSerializingThem) {
  Throttle throttle({0, 0, 50'000});
  const Clock::time_point before = Clock::now();
  Clock::time_point last = before;
  for (int i = 0; i < 100; ++i) {
    const Clock::time_point issued = Clock::now();
    last = throttle.admit(4096);
    EXPECT_GE(seconds_between(issued, last), 0.05);
  }
  // Operations in flight together each wait the latency once, not one after another (that
  // would schedule the last one 5 s in); the bound leaves room for a descheduled test thread.
  EXPECT_LE(seconds_between(before, last), 1.0);
}

TEST(ThrottleTest, IdleTimeSavesAtMostTheBurst) {
  Throttle throttle({100, 0, 0});
  throttle.admit(1);  // the buckets start empty here
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // 10 MB take 0.1 s at 100 MB/s; saved tokens cover at most kBurst (50 ms) of it.
  const Clock::time_point issued = Clock::now();
  const Clock::time_point due = throttle.admit(10'000'000);
  EXPECT_GE(seconds_between(issued, due), 0.1 - 0.05 - 0.005);
}

TEST(ThrottleTest, TimeBeforeTheFirstOperationSavesNothing) {
  Throttle throttle({100, 0, 0});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const Clock::time_point issued = Clock::now();
  EXPECT_GE(seconds_between(issued, throttle.admit(10'000'000)), 0.1);
}

TEST(ThrottleTest, ThreadsShareTheBuckets) {
  const Clock::time_point before = Clock::now();
  Throttle throttle({100, 0, 0});
  std::vector<Clock::time_point> last(4, before);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&throttle, &last, t] {
      for (int i = 0; i < 50; ++i) last[t] = std::max(last[t], throttle.admit(100'000));
    });
  }
  for (std::thread& thread : threads) thread.join();
  // 4 x 50 x 100 kB = 20 MB in all.
  EXPECT_GE(seconds_between(before, *std::max_element(last.begin(), last.end())), 0.18);
}

}  // namespace
}  // namespace feedrate::io
