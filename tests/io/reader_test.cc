// Tests for io::Reader, run against both backends (io_uring and pread): batches of random ranges
// at several queue depths, zero-length and multi-file batches, ranges past the end of the file,
// bad descriptors failing only their own request, reuse of a reader and its requests, and
// Reader::create's backend selection and reporting.

#include "io/reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <future>
#include <memory>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "io/file.h"
#include "tests/io/read_test_util.h"
#include "tests/support/test_data.h"

namespace feedrate::io {

// Names the backend in test names and failure messages, for gtest.
void PrintTo(Backend backend, std::ostream* os) {
  *os << backend_name(backend);
}

namespace {

namespace fs = std::filesystem;
using feedrate::testing::TempDir;
using feedrate::testing::write_file;
using test_support::Bytes;
using test_support::holds_bytes;
using test_support::make_request;
using test_support::random_bytes;

constexpr std::size_t kFileSize = 4 << 20;

ReaderOptions options(unsigned queue_depth, bool force_pread) {
  ReaderOptions options;
  options.queue_depth = queue_depth;
  options.force_pread = force_pread;
  return options;
}

File open_or_die(const fs::path& path) {
  std::error_code error;
  File file = File::open(path, error);
  EXPECT_FALSE(error) << path << ": " << error.message();
  return file;
}

class ReaderTest : public ::testing::TestWithParam<Backend> {
 protected:
  // A reader of the parameter's backend; skips the test when io_uring is unavailable here.
  std::unique_ptr<Reader> make_reader(unsigned queue_depth) {
    std::string reason = "unset";
    const bool force_pread = GetParam() == Backend::kPread;
    auto reader = Reader::create(options(queue_depth, force_pread), &reason);
    EXPECT_NE(reader, nullptr);
    if (reader == nullptr) return nullptr;
    if (GetParam() == Backend::kIoUring && !reason.empty()) {
      EXPECT_EQ(reader->backend(), Backend::kPread) << "a fallback reason implies pread";
      skip_reason_ = "io_uring unavailable: " + reason;
      return nullptr;
    }
    EXPECT_EQ(reader->backend(), GetParam());
    return reader;
  }

  std::string skip_reason_;
};

#define MAKE_READER_OR_SKIP(var, depth)                      \
  auto var = make_reader(depth);                             \
  if (var == nullptr) {                                      \
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_; \
    FAIL() << "Reader::create returned nothing";             \
  }

TEST_P(ReaderTest, ManyRandomRangesAtSeveralQueueDepths) {
  TempDir dir;
  const Bytes content = random_bytes(kFileSize, 42);
  write_file(dir / "data.bin", content);
  File file = open_or_die(dir / "data.bin");
  ASSERT_TRUE(file.is_open());

  for (unsigned depth : {1u, 8u, 64u}) {
    SCOPED_TRACE("queue_depth " + std::to_string(depth));
    MAKE_READER_OR_SKIP(reader, depth);
    std::mt19937 rng(depth);
    constexpr int kRequests = 500;
    std::vector<std::vector<std::byte>> buffers(kRequests);
    std::vector<ReadRequest> requests(kRequests);
    std::uint64_t total = 0;
    for (int i = 0; i < kRequests; ++i) {
      // Mostly small ranges as JPEG samples are, with a few large ones up to 1 MiB.
      const std::size_t limit = (i % 50 == 0) ? (1 << 20) : (64 << 10);
      const std::size_t size = 1 + rng() % limit;
      const std::uint64_t offset = rng() % (kFileSize - size + 1);
      buffers[i].assign(size, std::byte{0xEE});
      requests[i].fd = file.fd();
      requests[i].offset = offset;
      requests[i].dest = buffers[i];
      requests[i].bytes_read = 12345;  // stale values must be overwritten
      requests[i].error = std::make_error_code(std::errc::interrupted);
      total += size;
    }
    // The last range ends exactly at the end of the file.
    requests.back().offset = kFileSize - requests.back().dest.size();

    reader->read(requests);

    for (int i = 0; i < kRequests; ++i) {
      SCOPED_TRACE("request " + std::to_string(i));
      EXPECT_FALSE(requests[i].error) << requests[i].error.message();
      ASSERT_EQ(requests[i].bytes_read, requests[i].dest.size());
      ASSERT_TRUE(holds_bytes(requests[i], content));
    }
    EXPECT_EQ(reader->stats().bytes, total);
    EXPECT_EQ(reader->stats().failed, 0u);
    EXPECT_GE(reader->stats().operations, static_cast<std::uint64_t>(kRequests));
  }
}

TEST_P(ReaderTest, WholeFileInOneRequestAndInChunks) {
  TempDir dir;
  const Bytes content = random_bytes(kFileSize, 7);
  write_file(dir / "data.bin", content);
  File file = open_or_die(dir / "data.bin");
  MAKE_READER_OR_SKIP(reader, 4);

  std::vector<std::byte> whole(kFileSize);
  constexpr std::size_t kChunk = 1 << 20;
  std::vector<std::vector<std::byte>> chunks(kFileSize / kChunk, std::vector<std::byte>(kChunk));
  std::vector<ReadRequest> requests;
  requests.push_back(make_request(file.fd(), 0, whole));
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    requests.push_back(make_request(file.fd(), i * kChunk, chunks[i]));
  }
  reader->read(requests);

  ASSERT_FALSE(requests[0].error) << requests[0].error.message();
  ASSERT_EQ(requests[0].bytes_read, kFileSize);
  EXPECT_TRUE(holds_bytes(requests[0], content));
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    ASSERT_FALSE(requests[i + 1].error) << requests[i + 1].error.message();
    ASSERT_EQ(requests[i + 1].bytes_read, kChunk);
    EXPECT_TRUE(holds_bytes(requests[i + 1], content));
  }
  EXPECT_EQ(reader->stats().bytes, 2 * kFileSize);
}

TEST_P(ReaderTest, ZeroLengthRequestsAndSeveralFilesInterleaved) {
  TempDir dir;
  constexpr int kFiles = 3;
  std::vector<Bytes> contents;
  std::vector<File> files;
  for (int f = 0; f < kFiles; ++f) {
    const fs::path path = dir / ("file" + std::to_string(f) + ".bin");
    contents.push_back(random_bytes(10000 + 3000 * f, 100 + f));
    write_file(path, contents.back());
    files.push_back(open_or_die(path));
  }
  MAKE_READER_OR_SKIP(reader, 2);

  constexpr int kRequests = 60;
  std::mt19937 rng(9);
  std::vector<std::vector<std::byte>> buffers(kRequests);
  std::vector<ReadRequest> requests(kRequests);
  std::vector<int> file_of(kRequests);
  for (int i = 0; i < kRequests; ++i) {
    file_of[i] = i % kFiles;
    const Bytes& content = contents[file_of[i]];
    // Every fourth request reads nothing, some of them at the very end of the file.
    const std::size_t size = (i % 4 == 1) ? 0 : 1 + rng() % 4000;
    const std::uint64_t offset =
        (i % 8 == 1) ? content.size() : rng() % (content.size() - size + 1);
    buffers[i].resize(size);
    requests[i].fd = files[file_of[i]].fd();
    requests[i].offset = offset;
    requests[i].dest = buffers[i];
    requests[i].bytes_read = 99;
  }
  // Zero-length requests at both ends of the batch, including one with no buffer at all.
  requests.front().dest = {};
  buffers.front().clear();
  requests.back().dest = {};
  buffers.back().clear();
  std::uint64_t total = 0;
  for (const ReadRequest& request : requests) total += request.dest.size();

  reader->read(requests);

  for (int i = 0; i < kRequests; ++i) {
    SCOPED_TRACE("request " + std::to_string(i));
    EXPECT_FALSE(requests[i].error) << requests[i].error.message();
    ASSERT_EQ(requests[i].bytes_read, requests[i].dest.size());
    EXPECT_TRUE(holds_bytes(requests[i], contents[file_of[i]]));
  }
  EXPECT_EQ(reader->stats().bytes, total);
  EXPECT_EQ(reader->stats().failed, 0u);
}

TEST_P(ReaderTest, OnlyZeroLengthRequests) {
  MAKE_READER_OR_SKIP(reader, 8);
  std::vector<ReadRequest> requests(5);
  for (ReadRequest& request : requests) request.bytes_read = 3;
  reader->read(requests);
  for (const ReadRequest& request : requests) {
    EXPECT_FALSE(request.error) << request.error.message();
    EXPECT_EQ(request.bytes_read, 0u);
  }
  reader->read({});  // an empty batch returns at once
  EXPECT_EQ(reader->stats().bytes, 0u);
  EXPECT_EQ(reader->stats().failed, 0u);
}

TEST_P(ReaderTest, RangePastEndOfFileIsIoErrorWithBytesAvailable) {
  TempDir dir;
  const Bytes content = random_bytes(5000, 3);
  write_file(dir / "short.bin", content);
  File file = open_or_die(dir / "short.bin");
  MAKE_READER_OR_SKIP(reader, 8);

  std::vector<std::byte> straddle(400), beyond(100), at_end(1), good(1000);
  std::vector<ReadRequest> requests = {
      make_request(file.fd(), 4900, straddle),  // 100 bytes available
      make_request(file.fd(), 0, good),
      make_request(file.fd(), 9000, beyond),  // starts past the end
      make_request(file.fd(), 5000, at_end),  // starts exactly at the end
  };
  reader->read(requests);

  EXPECT_EQ(requests[0].error, feedrate::io::ReadErrc::kUnexpectedEof)
      << requests[0].error.message();
  EXPECT_EQ(requests[0].bytes_read, 100u);
  EXPECT_TRUE(holds_bytes(requests[0], content));

  EXPECT_FALSE(requests[1].error) << requests[1].error.message();
  EXPECT_EQ(requests[1].bytes_read, 1000u);
  EXPECT_TRUE(holds_bytes(requests[1], content));

  EXPECT_EQ(requests[2].error, feedrate::io::ReadErrc::kUnexpectedEof)
      << requests[2].error.message();
  EXPECT_EQ(requests[2].bytes_read, 0u);
  EXPECT_EQ(requests[3].error, feedrate::io::ReadErrc::kUnexpectedEof)
      << requests[3].error.message();
  EXPECT_EQ(requests[3].bytes_read, 0u);

  EXPECT_EQ(reader->stats().failed, 3u);
  EXPECT_EQ(reader->stats().bytes, 1100u);
}

TEST_P(ReaderTest, BadDescriptorFailsOnlyItsOwnRequest) {
  TempDir dir;
  const Bytes content = random_bytes(64 << 10, 5);
  write_file(dir / "data.bin", content);
  File file = open_or_die(dir / "data.bin");

  // A descriptor that was valid and has been closed. It is moved to a high number first so that
  // no descriptor opened later (such as the reader's ring) reuses it; see
  // StaleDescriptorReusedByTheRingFails for what happens when one does.
  const int closed_fd = ::fcntl(file.fd(), F_DUPFD_CLOEXEC, 900);
  ASSERT_GE(closed_fd, 900);
  ASSERT_EQ(::close(closed_fd), 0);

  for (unsigned depth : {1u, 4u}) {
    SCOPED_TRACE("queue_depth " + std::to_string(depth));
    MAKE_READER_OR_SKIP(reader, depth);
    constexpr int kRequests = 12;
    std::vector<std::vector<std::byte>> buffers(kRequests, std::vector<std::byte>(3000));
    std::vector<ReadRequest> requests(kRequests);
    for (int i = 0; i < kRequests; ++i) {
      requests[i].fd = file.fd();
      requests[i].offset = static_cast<std::uint64_t>(i) * 5000;
      requests[i].dest = buffers[i];
    }
    requests[0].fd = -1;
    requests[5].fd = closed_fd;
    requests[11].fd = -1;

    reader->read(requests);

    for (int i = 0; i < kRequests; ++i) {
      SCOPED_TRACE("request " + std::to_string(i));
      if (i == 0 || i == 5 || i == 11) {
        EXPECT_EQ(requests[i].error, std::errc::bad_file_descriptor) << requests[i].error.message();
        EXPECT_EQ(requests[i].bytes_read, 0u);
      } else {
        EXPECT_FALSE(requests[i].error) << requests[i].error.message();
        ASSERT_EQ(requests[i].bytes_read, 3000u);
        EXPECT_TRUE(holds_bytes(requests[i], content));
      }
    }
    EXPECT_EQ(reader->stats().failed, 3u);
    EXPECT_EQ(reader->stats().bytes, 9u * 3000);
  }
}

TEST_P(ReaderTest, OtherErrnoIsReportedAsIs) {
  TempDir dir;
  const int dir_fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dir_fd, 0);
  MAKE_READER_OR_SKIP(reader, 4);
  std::vector<std::byte> buffer(16);
  std::vector<ReadRequest> requests = {make_request(dir_fd, 0, buffer)};
  reader->read(requests);
  ::close(dir_fd);
  EXPECT_EQ(requests[0].error, std::errc::is_a_directory) << requests[0].error.message();
  EXPECT_EQ(requests[0].bytes_read, 0u);
}

TEST_P(ReaderTest, ReuseOfReaderAndRequestsClearsPreviousResults) {
  TempDir dir;
  const Bytes content = random_bytes(8192, 11);
  write_file(dir / "data.bin", content);
  File file = open_or_die(dir / "data.bin");
  MAKE_READER_OR_SKIP(reader, 2);

  std::vector<std::byte> a(1000), b(1000), c(1000);
  std::vector<ReadRequest> requests = {make_request(-1, 0, a), make_request(file.fd(), 8000, b),
                                       make_request(file.fd(), 10, c)};
  reader->read(requests);
  ASSERT_EQ(requests[0].error, std::errc::bad_file_descriptor);
  ASSERT_EQ(requests[1].error, feedrate::io::ReadErrc::kUnexpectedEof);
  ASSERT_EQ(requests[1].bytes_read, 192u);
  ASSERT_FALSE(requests[2].error);
  const ReadStats first = reader->stats();
  EXPECT_EQ(first.failed, 2u);
  EXPECT_EQ(first.bytes, 1192u);

  // The same requests, now all valid: results from the first batch must not leak through.
  requests[0].fd = file.fd();
  requests[1].offset = 7000;
  reader->read(requests);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    SCOPED_TRACE("request " + std::to_string(i));
    EXPECT_FALSE(requests[i].error) << requests[i].error.message();
    EXPECT_EQ(requests[i].bytes_read, 1000u);
  }
  EXPECT_TRUE(holds_bytes(requests[0], content));
  EXPECT_TRUE(holds_bytes(requests[1], content));
  EXPECT_TRUE(holds_bytes(requests[2], content));
  // Statistics accumulate over the reader's life.
  EXPECT_EQ(reader->stats().failed, first.failed);
  EXPECT_EQ(reader->stats().bytes, first.bytes + 3000);
}

// Regression: a stale descriptor whose number the kernel has since given to the reader's own
// io_uring ring made UringReader::read wait forever at queue depth 1 (the kernel parks a read
// of the ring fd until the ring has a completion, which only that read could produce). The
// watchdog turns a hang into a failure.
TEST_P(ReaderTest, StaleDescriptorReusedByTheRingFails) {
  TempDir dir;
  const Bytes content = random_bytes(4096, 13);
  write_file(dir / "data.bin", content);
  File file = open_or_die(dir / "data.bin");
  const int stale = ::open((dir / "data.bin").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(stale, 0);
  ASSERT_EQ(::close(stale), 0);
  // The ring, if any, takes the lowest free descriptor number: `stale`.
  MAKE_READER_OR_SKIP(reader, 1);

  // Everything the worker touches is shared, so that a hung worker can be abandoned.
  struct Batch {
    std::vector<std::byte> bad = std::vector<std::byte>(100);
    std::vector<std::byte> good = std::vector<std::byte>(100);
    std::vector<ReadRequest> requests;
    std::promise<void> done;
  };
  auto batch = std::make_shared<Batch>();
  batch->requests = {make_request(stale, 0, batch->bad), make_request(file.fd(), 0, batch->good)};
  std::future<void> done = batch->done.get_future();
  std::thread worker([batch, raw = reader.get()] {
    raw->read(batch->requests);
    batch->done.set_value();
  });
  if (done.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    worker.detach();
    static_cast<void>(reader.release());  // still in use by the hung worker
    FAIL() << "Reader::read did not return for a stale descriptor equal to the ring's";
  }
  worker.join();
  EXPECT_TRUE(batch->requests[0].error);
  EXPECT_EQ(batch->requests[0].bytes_read, 0u);
  EXPECT_FALSE(batch->requests[1].error) << batch->requests[1].error.message();
  EXPECT_EQ(batch->requests[1].bytes_read, 100u);
}

// Regression for requests above the 32-bit length of an io_uring read (they are now submitted in
// pieces of at most 1 GiB). Disabled because it needs 4 GiB of memory; run it with
// --gtest_also_run_disabled_tests on a machine that has it.
TEST_P(ReaderTest, DISABLED_RequestOfMoreThanFourGibibytes) {
  TempDir dir;
  const std::size_t size = (std::size_t{1} << 32) + 100;
  const fs::path path = dir / "sparse.bin";
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);  // sparse: reads as zeros
    ::close(fd);
  }
  File file = open_or_die(path);
  MAKE_READER_OR_SKIP(reader, 4);
  void* memory = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  std::vector<ReadRequest> requests = {
      make_request(file.fd(), 0, {static_cast<std::byte*>(memory), size})};
  reader->read(requests);
  ::munmap(memory, size);
  EXPECT_FALSE(requests[0].error) << requests[0].error.message();
  EXPECT_EQ(requests[0].bytes_read, size);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReaderTest,
                         ::testing::Values(Backend::kIoUring, Backend::kPread),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kIoUring ? "IoUring" : "Pread";
                         });

TEST(ReaderCreateTest, ForcePreadReportsPreadAndAReason) {
  std::string reason;
  auto reader = Reader::create(options(8, true), &reason);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->backend(), Backend::kPread);
  EXPECT_FALSE(reason.empty());
  EXPECT_EQ(reader->stats().bytes, 0u);
  EXPECT_EQ(reader->stats().operations, 0u);
  // A null reason pointer is allowed.
  EXPECT_NE(Reader::create(options(8, true), nullptr), nullptr);
}

TEST(ReaderCreateTest, DefaultCreateReportsAConsistentBackend) {
  std::string reason = "stale";
  auto reader = Reader::create(options(16, false), &reason);
  ASSERT_NE(reader, nullptr);
  if (reader->backend() == Backend::kIoUring) {
    EXPECT_TRUE(reason.empty()) << reason;
  } else {
    EXPECT_FALSE(reason.empty());
    EXPECT_NE(reason, "stale");
  }
}

TEST(ReaderCreateTest, BackendNames) {
  EXPECT_STREQ(backend_name(Backend::kIoUring), "io_uring");
  EXPECT_STREQ(backend_name(Backend::kPread), "pread");
}

}  // namespace
}  // namespace feedrate::io
