// Tests for O_DIRECT reads: the aligned-piece arithmetic, alignment discovery, the bounce
// buffers, and both backends reading unaligned ranges of O_DIRECT files exactly, on every file
// system at hand (the test temporary folder, /var/tmp, /dev/shm): where the file system takes
// O_DIRECT the reads bypass the page cache, where it refuses, the fallback is reported. Also
// /proc, which refuses O_DIRECT at open, and io_uring's fixed buffers.

#include "io/direct_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bit>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include "io/file.h"
#include "io/page_cache.h"
#include "io/reader.h"
#include "tests/io/read_test_util.h"
#include "tests/support/fake_clock.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

namespace fs = std::filesystem;
using feedrate::testing::FakeClock;
using feedrate::testing::write_file;
using test_support::Bytes;
using test_support::holds_bytes;
using test_support::make_reader;
using test_support::make_request;
using test_support::random_bytes;

ReadRequest request_of(std::uint64_t offset, std::vector<std::byte>& dest) {
  return make_request(-1, offset, dest);
}

TEST(DirectPieceTest, PieceCoversTheRangeFromAlignedBoundaries) {
  std::vector<std::byte> dest(1000);
  ReadRequest request = request_of(5000, dest);
  // [5000, 6000) with 512-byte alignment: [4608, 6144).
  Piece piece = next_piece(request, 512, 1 << 20);
  EXPECT_EQ(piece.offset, 4608u);
  EXPECT_EQ(piece.length, 1536u);
  // Limited pieces continue where the request's bytes_read says.
  piece = next_piece(request, 512, 1024);
  EXPECT_EQ(piece.offset, 4608u);
  EXPECT_EQ(piece.length, 1024u);
  request.bytes_read = 632;  // up to 5632
  piece = next_piece(request, 512, 1024);
  EXPECT_EQ(piece.offset, 5632u);
  EXPECT_EQ(piece.length, 512u);
  // An aligned range is its own piece.
  std::vector<std::byte> aligned(8192);
  request = request_of(4096, aligned);
  piece = next_piece(request, 4096, 1 << 20);
  EXPECT_EQ(piece.offset, 4096u);
  EXPECT_EQ(piece.length, 8192u);
}

TEST(DirectPieceTest, TakeCopiesTheRequestedPartOnly) {
  std::vector<std::byte> data(1536);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i % 251);
  std::vector<std::byte> dest(1000, std::byte{0xEE});
  ReadRequest request = request_of(5000, dest);
  // The first 1024 bytes of the piece at 4608: [5000, 5632) of the request.
  EXPECT_EQ(take_from_piece(request, 4608, std::span(data).first(1024)), 632u);
  EXPECT_EQ(request.bytes_read, 632u);
  for (std::size_t i = 0; i < 632; ++i) ASSERT_EQ(dest[i], data[392 + i]) << i;
  EXPECT_EQ(dest[632], std::byte{0xEE});
  // The rest, from a piece that reaches past the range's end.
  EXPECT_EQ(take_from_piece(request, 5632, data), 368u);
  EXPECT_EQ(request.bytes_read, 1000u);
  for (std::size_t i = 0; i < 368; ++i) ASSERT_EQ(dest[632 + i], data[i]) << i;
}

TEST(DirectPieceTest, DataEndingBeforeTheRequestTakesNothing) {
  std::vector<std::byte> data(400);
  std::vector<std::byte> dest(100);
  ReadRequest request = request_of(4900, dest);
  // End of file at 4608 + 292: nothing of [4900, 5000).
  EXPECT_EQ(take_from_piece(request, 4608, std::span(data).first(292)), 0u);
  EXPECT_EQ(take_from_piece(request, 4608, {}), 0u);
  // End of file at 4950: half of it.
  EXPECT_EQ(take_from_piece(request, 4608, std::span(data).first(342)), 50u);
  EXPECT_EQ(request.bytes_read, 50u);
}

TEST(BounceBuffersTest, GrowAlignedAndCapped) {
  BounceBuffers buffers;
  EXPECT_TRUE(buffers.reserve(4, 100'000, 4096));
  EXPECT_EQ(buffers.slot_size(), 102'400u);  // rounded up to 4096
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffers.slot(i)) % 4096, 0u);
  }
  EXPECT_FALSE(buffers.reserve(4, 50'000, 4096)) << "never shrinks";
  EXPECT_FALSE(buffers.reserve(2, 102'400, 512));
  EXPECT_TRUE(buffers.reserve(4, 200'000, 8192));
  EXPECT_EQ(buffers.slot_size() % 8192, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffers.data()) % 8192, 0u);
  // Deep queues get smaller slots: 64 MiB in all.
  BounceBuffers deep;
  deep.reserve(4096, 1 << 20, 4096);
  EXPECT_EQ(deep.slot_size(), 16u << 10);
  EXPECT_EQ(deep.total_size(), BounceBuffers::kMaxTotalBytes);
}

// A folder for the test's files under `root`, removed afterwards.
class ScratchDir {
 public:
  explicit ScratchDir(const fs::path& root) {
    std::string pattern = (root / "feedrate-direct-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code error;
    if (!path_.empty()) fs::remove_all(path_, error);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }  // empty when it could not be made

 private:
  fs::path path_;
};

std::string file_system_of(const fs::path& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return "unknown";
  switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x01021994:
      return "tmpfs";
    case 0xEF53:
      return "ext4";
    case 0x58465342:
      return "xfs";
    case 0x9123683E:
      return "btrfs";
    case 0x794C7630:
      return "overlayfs";
    default:
      return "type 0x" + std::to_string(fs.f_type);
  }
}

struct DirectCase {
  Backend backend;
  const char* root;  // empty: the test temporary folder
};

class DirectReadTest : public ::testing::TestWithParam<DirectCase> {
 protected:
  void SetUp() override {
    const std::string root = GetParam().root;
    scratch_ =
        std::make_unique<ScratchDir>(root.empty() ? fs::temp_directory_path() : fs::path(root));
    if (scratch_->path().empty()) GTEST_SKIP() << "cannot make a folder under " << root;
    path_ = scratch_->path() / "data.bin";
    content_ = random_bytes(kFileSize, 31);
    write_file(path_, content_);
    RecordProperty("file_system", file_system_of(path_));
  }

  // A reader with direct_io of the case's backend, or nullptr with skip_ set.
  std::unique_ptr<Reader> make_direct_reader(unsigned queue_depth, bool register_buffers = true) {
    ReaderOptions options;
    options.queue_depth = queue_depth;
    options.direct_io = true;
    options.register_buffers = register_buffers;
    return make_reader(GetParam().backend, options, skip_);
  }

  // Checks `reader` opened `file` with O_DIRECT, or reported why not.
  void expect_direct_or_fallback(const Reader& reader, const File& file) {
    if (file.direct()) {
      EXPECT_EQ(reader.stats().direct_io_fallbacks, 0u) << reader.stats().direct_io_fallback_reason;
      EXPECT_NE(reader.describe_backend().find("O_DIRECT"), std::string::npos);
    } else {
      EXPECT_GE(reader.stats().direct_io_fallbacks, 1u);
      EXPECT_NE(reader.stats().direct_io_fallback_reason.find(path_.string()), std::string::npos)
          << reader.stats().direct_io_fallback_reason;
    }
  }

  static constexpr std::size_t kFileSize = (3 << 20) + 777;  // not a multiple of any block
  std::unique_ptr<ScratchDir> scratch_;
  fs::path path_;
  Bytes content_;
  std::string skip_;
};

TEST_P(DirectReadTest, UnalignedRangesReadExactly) {
  auto reader = make_direct_reader(16);
  if (reader == nullptr) GTEST_SKIP() << skip_;
  std::error_code error;
  const File file = reader->open(path_, error);
  ASSERT_FALSE(error) << error.message();
  expect_direct_or_fallback(*reader, file);
  SCOPED_TRACE(std::string(file.direct() ? "O_DIRECT" : "buffered") + " on " +
               file_system_of(path_));

  std::mt19937 rng(5);
  constexpr int kRequests = 300;
  std::vector<std::vector<std::byte>> buffers(kRequests);
  std::vector<ReadRequest> requests;
  std::uint64_t total = 0;
  for (int i = 0; i < kRequests; ++i) {
    // JPEG-sized ranges at odd offsets, a few longer than a bounce slot (1 MiB here is split
    // into pieces only if the slot is smaller), and single bytes.
    const std::size_t size = i % 60 == 0 ? (1 << 20) + 3 : i % 7 == 0 ? 1 : 1 + rng() % 150'000;
    const std::uint64_t offset = rng() % (kFileSize - size + 1);
    buffers[i].assign(size, std::byte{0xEE});
    requests.push_back(make_request(file.fd(), offset, buffers[i]));
    total += size;
  }
  // Ranges that end exactly at the end of the file, and the whole file in one request.
  buffers.emplace_back(4097);
  requests.push_back(make_request(file.fd(), kFileSize - 4097, buffers.back()));
  buffers.emplace_back(kFileSize);
  requests.push_back(make_request(file.fd(), 0, buffers.back()));
  total += 4097 + kFileSize;

  // Twice: the second batch reuses the bounce buffers.
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    reader->read(requests);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      SCOPED_TRACE("request " + std::to_string(i));
      ASSERT_FALSE(requests[i].error) << requests[i].error.message();
      ASSERT_EQ(requests[i].bytes_read, requests[i].dest.size());
      ASSERT_TRUE(holds_bytes(requests[i], content_));
    }
  }
  EXPECT_EQ(reader->stats().bytes, 2 * total);
  EXPECT_EQ(reader->stats().failed, 0u);
}

TEST_P(DirectReadTest, DeepQueueReadsLongRangesInSeveralPieces) {
  // 2048 slots share 64 MiB of bounce buffers: 32 KiB each, so a 1 MiB range takes 33 pieces
  // with io_uring (pread has one slot of up to 64 MiB).
  auto reader = make_direct_reader(2048);
  if (reader == nullptr) GTEST_SKIP() << skip_;
  std::error_code error;
  const File file = reader->open(path_, error);
  ASSERT_FALSE(error) << error.message();
  std::vector<std::vector<std::byte>> buffers(6, std::vector<std::byte>((1 << 20) + 3));
  std::vector<ReadRequest> requests;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    requests.push_back(make_request(file.fd(), 1 + i * 350'000, buffers[i]));
  }
  reader->read(requests);
  for (const ReadRequest& request : requests) {
    ASSERT_FALSE(request.error) << request.error.message();
    ASSERT_EQ(request.bytes_read, request.dest.size());
    ASSERT_TRUE(holds_bytes(request, content_));
  }
  if (file.direct() && GetParam().backend == Backend::kIoUring) {
    EXPECT_GE(reader->stats().operations, 6u * 33);
    EXPECT_EQ(reader->stats().retries, 0u) << "pieces are planned, not retried";
  }
}

TEST_P(DirectReadTest, RangesPastTheEndReportWhatTheFileHas) {
  auto reader = make_direct_reader(4);
  if (reader == nullptr) GTEST_SKIP() << skip_;
  std::error_code error;
  const File file = reader->open(path_, error);
  ASSERT_FALSE(error) << error.message();
  std::vector<std::byte> straddle(1000), beyond(10), empty;
  std::vector<ReadRequest> requests = {make_request(file.fd(), kFileSize - 300, straddle),
                                       make_request(file.fd(), kFileSize + 5000, beyond),
                                       make_request(file.fd(), 12345, empty)};
  reader->read(requests);
  EXPECT_EQ(requests[0].error, feedrate::io::ReadErrc::kUnexpectedEof)
      << requests[0].error.message();
  EXPECT_EQ(requests[0].bytes_read, 300u);
  EXPECT_TRUE(holds_bytes(requests[0], content_));
  EXPECT_EQ(requests[1].error, feedrate::io::ReadErrc::kUnexpectedEof)
      << requests[1].error.message();
  EXPECT_EQ(requests[1].bytes_read, 0u);
  EXPECT_FALSE(requests[2].error);
  EXPECT_EQ(reader->stats().failed, 2u);
}

// The throttle times the reads on a fake clock, whose time only its waits move: no real time
// passes for it, and what it measures is the limits' arithmetic.
TEST_P(DirectReadTest, DirectAndBufferedDescriptorsInOneThrottledBatch) {
  FakeClock clock;
  ReaderOptions options;
  options.queue_depth = 8;
  options.direct_io = true;
  options.throttle = {100, 0, 0};
  options.clock = &clock;
  auto reader = make_reader(GetParam().backend, options, skip_);
  if (reader == nullptr) GTEST_SKIP() << skip_;
  std::error_code error;
  const File direct = reader->open(path_, error);
  ASSERT_FALSE(error) << error.message();
  const File buffered = File::open(path_, error);
  ASSERT_FALSE(error) << error.message();
  ASSERT_FALSE(buffered.direct());

  std::vector<std::vector<std::byte>> buffers(40, std::vector<std::byte>(500'003));
  std::vector<ReadRequest> requests;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    requests.push_back(make_request(i % 2 ? direct.fd() : buffered.fd(),
                                    1 + i * 70'001 % (kFileSize - 500'003), buffers[i]));
  }
  reader->read(requests);
  const double seconds = std::chrono::duration<double>(clock.now() - FakeClock::kStart).count();
  for (const ReadRequest& request : requests) {
    ASSERT_FALSE(request.error) << request.error.message();
    ASSERT_TRUE(holds_bytes(request, content_));
  }
  // 20 MB at 100 MB/s, the bucket starting empty: 0.2 s of the fake clock at least (aligned
  // pieces count a little more).
  EXPECT_GE(seconds, 40 * 500'003 / 100e6);
}

TEST_P(DirectReadTest, DirectReadsBypassThePageCache) {
  auto reader = make_direct_reader(8);
  if (reader == nullptr) GTEST_SKIP() << skip_;
  std::error_code error;
  const File file = reader->open(path_, error);
  ASSERT_FALSE(error) << error.message();
  if (!file.direct()) GTEST_SKIP() << file_system_of(path_) << " refuses O_DIRECT";
  if (file_system_of(path_) == "tmpfs") GTEST_SKIP() << "tmpfs files live in the page cache";
  ASSERT_FALSE(evict_from_page_cache(path_));
  if (resident_bytes(path_) > kFileSize / 2) GTEST_SKIP() << "eviction did not work here";
  std::vector<std::byte> whole(kFileSize);
  std::vector<ReadRequest> requests = {make_request(file.fd(), 0, whole)};
  reader->read(requests);
  ASSERT_FALSE(requests[0].error) << requests[0].error.message();
  EXPECT_TRUE(holds_bytes(requests[0], content_));
  EXPECT_LT(resident_bytes(path_), kFileSize / 2) << "O_DIRECT reads filled the page cache";
}

TEST_P(DirectReadTest, FixedBuffersAreUsedOrExplained) {
  for (const bool register_buffers : {true, false}) {
    SCOPED_TRACE(register_buffers ? "register_buffers" : "no register_buffers");
    auto reader = make_direct_reader(8, register_buffers);
    if (reader == nullptr) GTEST_SKIP() << skip_;
    const ReadStats& stats = reader->stats();
    if (GetParam().backend == Backend::kPread) {
      EXPECT_EQ(reader->describe_backend(), "pread+O_DIRECT");
      EXPECT_FALSE(stats.fixed_buffers);
    } else if (!register_buffers) {
      EXPECT_EQ(reader->describe_backend(), "io_uring+O_DIRECT");
      EXPECT_FALSE(stats.fixed_buffers);
      EXPECT_TRUE(stats.fixed_buffers_note.empty()) << stats.fixed_buffers_note;
    } else if (stats.fixed_buffers) {
      EXPECT_EQ(reader->describe_backend(), "io_uring+fixed-buffers+O_DIRECT");
    } else {
      EXPECT_EQ(reader->describe_backend(), "io_uring+O_DIRECT");
      EXPECT_FALSE(stats.fixed_buffers_note.empty());
    }
    // Reads through grown (and re-registered) buffers.
    std::error_code error;
    const File file = reader->open(path_, error);
    ASSERT_FALSE(error) << error.message();
    std::vector<std::vector<std::byte>> buffers(8, std::vector<std::byte>(300'001));
    std::vector<ReadRequest> requests;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      requests.push_back(make_request(file.fd(), 3 + i * 333'333, buffers[i]));
    }
    reader->read(requests);
    for (const ReadRequest& request : requests) {
      ASSERT_FALSE(request.error) << request.error.message();
      ASSERT_TRUE(holds_bytes(request, content_));
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<DirectCase>& info) {
  std::string root = info.param.root;
  std::string name = info.param.backend == Backend::kIoUring ? "IoUring" : "Pread";
  if (root.empty()) return name + "_TestTemp";
  for (char& c : root) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name + root;
}

INSTANTIATE_TEST_SUITE_P(BackendsAndFileSystems, DirectReadTest,
                         ::testing::Values(DirectCase{Backend::kIoUring, ""},
                                           DirectCase{Backend::kPread, ""},
                                           DirectCase{Backend::kIoUring, "/var/tmp"},
                                           DirectCase{Backend::kPread, "/var/tmp"},
                                           DirectCase{Backend::kIoUring, "/dev/shm"},
                                           DirectCase{Backend::kPread, "/dev/shm"}),
                         case_name);

// /proc refuses O_DIRECT at open: the reader opens it buffered and says so.
TEST(DirectFallbackTest, FileSystemRefusingODirectAtOpen) {
  const fs::path path = "/proc/version";
  std::ifstream stream(path);
  const std::string text((std::istreambuf_iterator<char>(stream)),
                         std::istreambuf_iterator<char>());
  if (text.size() < 20) GTEST_SKIP() << "no readable " << path;
  for (const Backend backend : {Backend::kIoUring, Backend::kPread}) {
    SCOPED_TRACE(backend_name(backend));
    ReaderOptions options;
    options.direct_io = true;
    std::string skip;
    auto reader = make_reader(backend, options, skip);
    if (reader == nullptr) continue;
    std::error_code error;
    const File file = reader->open(path, error);
    ASSERT_FALSE(error) << error.message();
    if (file.direct()) GTEST_SKIP() << path << " accepts O_DIRECT here";
    EXPECT_EQ(reader->stats().direct_io_fallbacks, 1u);
    EXPECT_NE(reader->stats().direct_io_fallback_reason.find("/proc/version"), std::string::npos)
        << reader->stats().direct_io_fallback_reason;
    std::vector<std::byte> dest(text.size() - 7);
    std::vector<ReadRequest> requests = {make_request(file.fd(), 7, dest)};
    reader->read(requests);
    ASSERT_FALSE(requests[0].error) << requests[0].error.message();
    ASSERT_EQ(requests[0].bytes_read, dest.size());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(dest.data()), dest.size()), text.substr(7));
  }
}

TEST(DirectAlignmentTest, DiscoveredAlignmentIsAPowerOfTwoOrUnsupported) {
  feedrate::testing::TempDir dir;
  write_file(dir / "a.bin", random_bytes(10'000, 1));
  std::error_code error;
  const File file = File::open(dir / "a.bin", error, true);
  ASSERT_FALSE(error) << error.message();
  const DirectAlignment alignment = direct_alignment(file.fd());
  RecordProperty("offset_alignment", std::to_string(alignment.offset));
  RecordProperty("memory_alignment", std::to_string(alignment.memory));
  if (!file.direct()) GTEST_SKIP() << "no O_DIRECT on " << file_system_of(dir.path());
  if (alignment.offset == 0) return;  // statx says the file cannot be read with O_DIRECT
  EXPECT_TRUE(std::has_single_bit(alignment.offset)) << alignment.offset;
  EXPECT_LE(alignment.offset, 64u << 10);
  EXPECT_GE(alignment.memory, 1u);
}

}  // namespace
}  // namespace feedrate::io
