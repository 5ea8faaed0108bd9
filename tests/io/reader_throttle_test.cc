// Tests for a Reader's throttle and statistics, against both backends: a throttled reader is
// limited (bytes, operations, latency) and still delivers the right bytes; io_uring keeps
// several reads in flight while it waits; latency percentiles, reads in flight, the backend
// description and the throttle applied are reported. The readers time themselves on a fake clock
// (tests/support/fake_clock.h) whose time their throttled waits move, so that a run's duration
// is exactly what the limits imply, whatever the machine, and no test sleeps.

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/file.h"
#include "io/reader.h"
#include "tests/io/read_test_util.h"
#include "tests/support/fake_clock.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

using feedrate::testing::FakeClock;
using feedrate::testing::TempDir;
using feedrate::testing::write_file;
using test_support::Bytes;
using test_support::holds_bytes;
using test_support::make_reader;
using test_support::make_request;
using test_support::random_bytes;

class ReaderThrottleTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    content_ = random_bytes(kFileSize, 77);
    write_file(dir_ / "data.bin", content_);
    std::error_code error;
    file_ = File::open(dir_ / "data.bin", error);
    ASSERT_FALSE(error) << error.message();
  }

  // Reads the file in `count` consecutive requests of `size` bytes with a fresh reader; returns
  // the seconds the fake clock moved by, or a negative number when the test must be skipped.
  double read_all(const ReaderOptions& options, std::size_t count, std::size_t size) {
    std::string skip;
    std::unique_ptr<Reader> reader = make_reader(GetParam(), options, skip);
    if (reader == nullptr) {
      skip_ = skip;
      return -1;
    }
    buffers_.assign(count, std::vector<std::byte>(size));
    requests_.clear();
    for (std::size_t i = 0; i < count; ++i) {
      requests_.push_back(make_request(file_.fd(), i * size % (kFileSize - size), buffers_[i]));
    }
    reader->read(requests_);
    const double seconds = std::chrono::duration<double>(clock_.now() - FakeClock::kStart).count();
    for (std::size_t i = 0; i < count; ++i) {
      SCOPED_TRACE("request " + std::to_string(i));
      EXPECT_FALSE(requests_[i].error) << requests_[i].error.message();
      EXPECT_EQ(requests_[i].bytes_read, size);
      EXPECT_TRUE(holds_bytes(requests_[i], content_));
    }
    stats_ = reader->stats();
    return seconds;
  }

  // Options timed on the fake clock.
  ReaderOptions options(unsigned queue_depth, const ThrottleSpec& throttle) {
    ReaderOptions options;
    options.queue_depth = queue_depth;
    options.throttle = throttle;
    options.clock = &clock_;
    return options;
  }

  static constexpr std::size_t kFileSize = 4 << 20;
  FakeClock clock_;
  TempDir dir_;
  Bytes content_;
  File file_;
  std::vector<std::vector<std::byte>> buffers_;
  std::vector<ReadRequest> requests_;
  ReadStats stats_;
  std::string skip_;
};

#define SKIP_IF_NEEDED(seconds) \
  if ((seconds) < 0) GTEST_SKIP() << skip_

// The fake seconds a run took: its limits' arithmetic, to a nanosecond a read.
constexpr double kExact = 1e-6;

TEST_P(ReaderThrottleTest, ByteRateLimitsThroughput) {
  // 200 x 100 kB = 20 MB at 100 MB/s: the last read is due 0.2 s in.
  const double seconds = read_all(options(16, {100, 0, 0}), 200, 100'000);
  SKIP_IF_NEEDED(seconds);
  EXPECT_NEAR(seconds, 0.2, kExact);
  EXPECT_EQ(stats_.bytes, 20'000'000u);
  EXPECT_DOUBLE_EQ(stats_.throttle.mb_per_s, 100);
}

TEST_P(ReaderThrottleTest, OperationRateLimitsSmallReads) {
  // 300 reads at 1500 IOPS: 0.2 s.
  const double seconds = read_all(options(16, {0, 1500, 0}), 300, 4096);
  SKIP_IF_NEEDED(seconds);
  EXPECT_NEAR(seconds, 0.2, kExact);
}

TEST_P(ReaderThrottleTest, LatencyIsPaidPerReadAndOverlapsInTheQueue) {
  // 100 reads of 2 ms each: pread waits for each in turn (0.2 s); io_uring keeps 16 in flight,
  // which wait their 2 ms together: 7 rounds (6 of 16 and one of 4).
  const double seconds = read_all(options(16, {0, 0, 2000}), 100, 4096);
  SKIP_IF_NEEDED(seconds);
  EXPECT_NEAR(stats_.latency_p50_us, 2000, 0.07 * 2000);  // the histogram's resolution
  EXPECT_NEAR(stats_.latency_p99_us, 2000, 0.07 * 2000);
  if (GetParam() == Backend::kPread) {
    EXPECT_NEAR(seconds, 0.2, kExact);
    EXPECT_EQ(stats_.peak_in_flight, 1u);
  } else {
    EXPECT_NEAR(seconds, 7 * 0.002, kExact);
    EXPECT_EQ(stats_.peak_in_flight, 16u);
    EXPECT_NEAR(stats_.average_in_flight, 100.0 / 7, 1e-6);
  }
}

TEST_P(ReaderThrottleTest, DiskClassHddLimitsRandomReads) {
  // 40 reads of 100 kB at 150 IOPS: 0.267 s, whatever the queue depth (the operations bucket is
  // the slowest: 0.5 ms of bytes and 4 ms of latency a read).
  const double seconds = read_all(options(32, parse_throttle("hdd")), 40, 100'000);
  SKIP_IF_NEEDED(seconds);
  EXPECT_NEAR(seconds, 40 / 150.0, kExact);
}

TEST_P(ReaderThrottleTest, StatisticsOfAnUnthrottledReader) {
  // On the real clock: an unthrottled read takes no fake time, and its latency is the disk's.
  ReaderOptions unthrottled = options(8, {});
  unthrottled.clock = &Clock::real();
  const double seconds = read_all(unthrottled, 64, 50'000);
  SKIP_IF_NEEDED(seconds);
  EXPECT_GE(stats_.operations, 64u);
  EXPECT_GT(stats_.latency_p50_us, 0);
  EXPECT_LE(stats_.latency_p50_us, stats_.latency_p99_us);
  EXPECT_GE(stats_.peak_in_flight, 1u);
  EXPECT_LE(stats_.peak_in_flight, 8u);
  EXPECT_GT(stats_.average_in_flight, 0);
  EXPECT_LE(stats_.average_in_flight, 8);
  EXPECT_FALSE(stats_.throttle.limited());
  EXPECT_EQ(stats_.backend_description, backend_name(GetParam()));
  EXPECT_FALSE(stats_.fixed_buffers);
  EXPECT_EQ(stats_.direct_io_fallbacks, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReaderThrottleTest,
                         ::testing::Values(Backend::kIoUring, Backend::kPread),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kIoUring ? "IoUring" : "Pread";
                         });

TEST(ReaderThrottleCreateTest, InvalidThrottleIsRejected) {
  ReaderOptions options;
  options.throttle = {-5, 0, 0};
  EXPECT_THROW(Reader::create(options, nullptr), std::invalid_argument);
  options.force_pread = true;
  EXPECT_THROW(Reader::create(options, nullptr), std::invalid_argument);
}

TEST(ReaderThrottleCreateTest, DescribeBackendNamesWhatReads) {
  // Each configuration has its own description; a throttle changes none of them.
  struct Case {
    Backend backend;
    bool direct_io;
    bool register_buffers;
    const char* expected;  // with fixed buffers refused, where registering them is asked for
  };
  const Case cases[] = {
      {Backend::kPread, false, true, "pread"},
      {Backend::kPread, true, true, "pread+O_DIRECT"},
      {Backend::kIoUring, false, true, "io_uring"},
      {Backend::kIoUring, true, false, "io_uring+O_DIRECT"},
      {Backend::kIoUring, true, true, "io_uring+O_DIRECT"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.expected) + (c.register_buffers ? ", register_buffers" : ""));
    ReaderOptions options;
    options.throttle = parse_throttle("nvme");
    options.direct_io = c.direct_io;
    options.register_buffers = c.register_buffers;
    std::string skip;
    auto reader = make_reader(c.backend, options, skip);
    if (reader == nullptr) {
      std::cout << "not checked: " << skip << "\n";
      continue;
    }
    const ReadStats& stats = reader->stats();
    if (stats.fixed_buffers) {
      EXPECT_TRUE(c.direct_io && c.register_buffers);
      EXPECT_EQ(reader->describe_backend(), "io_uring+fixed-buffers+O_DIRECT");
    } else {
      EXPECT_EQ(reader->describe_backend(), c.expected);
      if (c.backend == Backend::kIoUring && c.direct_io && c.register_buffers) {
        EXPECT_FALSE(stats.fixed_buffers_note.empty()) << "a refusal says why";
      }
    }
    EXPECT_DOUBLE_EQ(stats.throttle.mb_per_s, 2400);
  }
}

}  // namespace
}  // namespace feedrate::io
