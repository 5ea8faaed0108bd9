// The retry paths of both Reader backends, driven for real through ReaderOptions::fault_hook: a
// read operation that returns EINTR or EAGAIN is retried and then completes with the file's
// bytes; a storm of them outlasts kMaxTransientRetries and fails only its own request with that
// errno; a short read is resubmitted for the remainder; an O_DIRECT read through a bounce buffer
// is retried the same way. Where an operation is failed or cut short, the hook overwrites the
// bytes the reader must not use, so a request completes with the right bytes only if they were
// read again. The statistics count every retry and operation exactly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "io/file.h"
#include "io/reader.h"
#include "tests/io/read_test_util.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

using feedrate::testing::TempDir;
using feedrate::testing::write_file;
using test_support::Bytes;
using test_support::holds_bytes;
using test_support::make_reader;
using test_support::make_request;
using test_support::random_bytes;

constexpr std::byte kPoison{0xA5};

void poison(std::span<std::byte> bytes) {
  std::fill(bytes.begin(), bytes.end(), kPoison);
}

class ReaderRetryTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    content_ = random_bytes(kFileSize, 41);
    write_file(dir_ / "data.bin", content_);
  }

  // Reads `count` ranges of `size` bytes, kStride apart from an unaligned start, in one batch,
  // with a fresh reader whose fault hook is `hook` (which sees every call counted in calls_,
  // by the operation's file offset). Returns false with skip_ set when the test must be skipped.
  bool read_batch(ReaderOptions options, std::size_t count, std::size_t size,
                  const ReadFaultHook& hook) {
    options.fault_hook = [this, hook](const ReadOperation& operation, std::int64_t result) {
      ++calls_[operation.offset];
      return hook(operation, result);
    };
    reader_ = make_reader(GetParam(), options, skip_);
    if (reader_ == nullptr) return false;
    std::error_code error;
    file_ = reader_->open(dir_ / "data.bin", error);
    EXPECT_FALSE(error) << error.message();
    if (options.direct_io && !file_.direct()) {
      skip_ = "O_DIRECT refused here: " + reader_->stats().direct_io_fallback_reason;
      return false;
    }
    buffers_.assign(count, std::vector<std::byte>(size));
    requests_.clear();
    for (std::size_t i = 0; i < count; ++i) {
      requests_.push_back(make_request(file_.fd(), offset_of(i), buffers_[i]));
    }
    reader_->read(requests_);
    return true;
  }

  static std::uint64_t offset_of(std::size_t request) { return request * kStride + 123; }

  // Expects request `i` to hold the file's bytes in full, without an error.
  void expect_complete(std::size_t i) const {
    SCOPED_TRACE("request " + std::to_string(i));
    EXPECT_FALSE(requests_[i].error) << requests_[i].error.message();
    EXPECT_EQ(requests_[i].bytes_read, requests_[i].dest.size());
    EXPECT_TRUE(holds_bytes(requests_[i], content_));
  }

  static constexpr std::size_t kStride = 64 << 10;
  static constexpr std::size_t kFileSize = 4 << 20;
  TempDir dir_;
  Bytes content_;
  std::unique_ptr<Reader> reader_;
  File file_;
  std::vector<std::vector<std::byte>> buffers_;
  std::vector<ReadRequest> requests_;
  std::map<std::uint64_t, int> calls_;  // fault hook calls by file offset
  std::string skip_;
};

// Fails the first four operations at each offset, alternately with EINTR and EAGAIN, after
// overwriting what the kernel read; lets the fifth through.
std::int64_t four_transient_errors(std::map<std::uint64_t, int>& calls, const ReadOperation& op,
                                   std::int64_t result) {
  const int call = calls[op.offset];  // counted before the hook runs: 1 on the first
  if (call > 4) return result;
  poison(op.buffer);
  return call % 2 == 1 ? -EINTR : -EAGAIN;
}

TEST_P(ReaderRetryTest, EintrAndEagainAreRetriedUntilTheReadCompletes) {
  // Queue depth 4 under 24 requests: io_uring resubmits while first submissions still wait.
  ReaderOptions options;
  options.queue_depth = 4;
  constexpr std::size_t kRequests = 24;
  constexpr std::size_t kSize = 20'000;
  const bool ran =
      read_batch(options, kRequests, kSize, [this](const ReadOperation& op, std::int64_t result) {
        return four_transient_errors(calls_, op, result);
      });
  if (!ran) GTEST_SKIP() << skip_;
  for (std::size_t i = 0; i < kRequests; ++i) {
    expect_complete(i);
    EXPECT_EQ(calls_[offset_of(i)], 5) << "request " << i;
  }
  const ReadStats& stats = reader_->stats();
  EXPECT_EQ(stats.retries, kRequests * 4);
  EXPECT_EQ(stats.operations, kRequests * 5);
  EXPECT_EQ(stats.bytes, kRequests * kSize);
  EXPECT_EQ(stats.failed, 0u);
}

TEST_P(ReaderRetryTest, AStormOutlastsTheRetriesAndFailsOnlyItsRequest) {
  for (const int storm : {EINTR, EAGAIN}) {
    SCOPED_TRACE(std::generic_category().message(storm));
    calls_.clear();
    ReaderOptions options;
    options.queue_depth = 4;
    constexpr std::size_t kRequests = 8;
    constexpr std::size_t kVictim = 3;
    const bool ran = read_batch(options, kRequests, 10'000,
                                [storm](const ReadOperation& op, std::int64_t result) {
                                  return op.offset == offset_of(kVictim) ? -storm : result;
                                });
    if (!ran) GTEST_SKIP() << skip_;
    EXPECT_EQ(requests_[kVictim].error, std::error_code(storm, std::generic_category()))
        << requests_[kVictim].error.message();
    EXPECT_EQ(requests_[kVictim].bytes_read, 0u);
    EXPECT_EQ(calls_[offset_of(kVictim)], kMaxTransientRetries);
    for (std::size_t i = 0; i < kRequests; ++i) {
      if (i != kVictim) expect_complete(i);
    }
    const ReadStats& stats = reader_->stats();
    EXPECT_EQ(stats.failed, 1u);
    EXPECT_EQ(stats.retries, static_cast<std::uint64_t>(kMaxTransientRetries - 1));
    EXPECT_EQ(stats.operations, kRequests - 1 + kMaxTransientRetries);
  }
}

TEST_P(ReaderRetryTest, ShortReadsAreResubmittedForTheRemainder) {
  // Every operation of more than 1000 bytes returns half of what it read, and the other half of
  // its buffer is overwritten: 64000 bytes take operations of 64000, 32000, ..., 1000 bytes, of
  // which all but the last are short.
  ReaderOptions options;
  options.queue_depth = 4;
  constexpr std::size_t kRequests = 12;
  const bool ran = read_batch(options, kRequests, 64'000,
                              [](const ReadOperation& op, std::int64_t result) -> std::int64_t {
                                if (op.buffer.size() <= 1000 || result <= 0) return result;
                                const std::size_t half = static_cast<std::size_t>(result) / 2;
                                poison(op.buffer.subspan(half));
                                return static_cast<std::int64_t>(half);
                              });
  if (!ran) GTEST_SKIP() << skip_;
  for (std::size_t i = 0; i < kRequests; ++i) {
    expect_complete(i);
    for (std::uint64_t done = 0, length = 64'000; length >= 1000; done += length / 2, length /= 2) {
      EXPECT_EQ(calls_[offset_of(i) + done], 1) << "request " << i << ", after " << done;
    }
  }
  const ReadStats& stats = reader_->stats();
  EXPECT_EQ(stats.operations, kRequests * 7);
  EXPECT_EQ(stats.retries, kRequests * 6);
  EXPECT_EQ(stats.bytes, kRequests * 64'000);
  EXPECT_EQ(stats.failed, 0u);
}

TEST_P(ReaderRetryTest, AReadThatEndsEarlyAfterAShortReadIsUnexpectedEof) {
  // The first operation returns half of the range, the second nothing: the file ended.
  ReaderOptions options;
  constexpr std::size_t kSize = 30'000;
  const bool ran = read_batch(options, 1, kSize, [](const ReadOperation& op, std::int64_t) {
    return op.offset == offset_of(0) ? std::int64_t{kSize / 2} : std::int64_t{0};
  });
  if (!ran) GTEST_SKIP() << skip_;
  EXPECT_EQ(requests_[0].error, make_error_code(ReadErrc::kUnexpectedEof))
      << requests_[0].error.message();
  EXPECT_EQ(requests_[0].bytes_read, kSize / 2);
  EXPECT_TRUE(holds_bytes(requests_[0], content_));
  EXPECT_EQ(reader_->stats().failed, 1u);
  EXPECT_EQ(reader_->stats().operations, 2u);
}

TEST_P(ReaderRetryTest, ODirectPiecesAreRetriedThroughTheirBounceBuffer) {
  // Each range starts 123 bytes past a multiple of kStride and is read as one aligned piece from
  // that multiple (the offset the hook sees) into a reader-owned bounce buffer.
  ReaderOptions options;
  options.queue_depth = 4;
  options.direct_io = true;
  constexpr std::size_t kRequests = 16;
  std::vector<const std::byte*> buffers_seen;
  const bool ran =
      read_batch(options, kRequests, 20'000, [&](const ReadOperation& op, std::int64_t result) {
        buffers_seen.push_back(op.buffer.data());
        return four_transient_errors(calls_, op, result);
      });
  if (!ran) GTEST_SKIP() << skip_;
  for (std::size_t i = 0; i < kRequests; ++i) {
    expect_complete(i);
    EXPECT_EQ(calls_[i * kStride], 5) << "request " << i;
  }
  for (const std::byte* seen : buffers_seen) {
    for (const std::vector<std::byte>& dest : buffers_) {
      EXPECT_FALSE(seen >= dest.data() && seen < dest.data() + dest.size())
          << "an O_DIRECT read went straight into a request's buffer";
    }
  }
  EXPECT_EQ(reader_->stats().retries, kRequests * 4);
  EXPECT_EQ(reader_->stats().operations, kRequests * 5);
  EXPECT_EQ(reader_->stats().failed, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReaderRetryTest,
                         ::testing::Values(Backend::kIoUring, Backend::kPread),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kIoUring ? "IoUring" : "Pread";
                         });

}  // namespace
}  // namespace feedrate::io
