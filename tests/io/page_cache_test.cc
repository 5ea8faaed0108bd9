// Tests for io::evict_from_page_cache and io::resident_bytes: a file just read is resident,
// eviction drops it on a disk file system (skipped on tmpfs, whose files live in the page
// cache, and where nothing was resident to begin with), and errors are reported.

#include "io/page_cache.h"

#include <gtest/gtest.h>
#include <sys/vfs.h>

#include <cstdint>
#include <filesystem>
#include <system_error>

#include "tests/io/read_test_util.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

using feedrate::testing::read_file;
using feedrate::testing::TempDir;
using feedrate::testing::write_file;
using test_support::random_bytes;

constexpr unsigned long kTmpfsMagic = 0x01021994;

bool on_tmpfs(const std::filesystem::path& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && static_cast<unsigned long>(fs.f_type) == kTmpfsMagic;
}

TEST(PageCacheTest, EvictionDropsAFileThatWasRead) {
  TempDir dir;
  const auto path = dir / "data.bin";
  constexpr std::uint64_t kSize = (8 << 20) + 100;
  write_file(path, random_bytes(kSize, 3));
  read_file(path);
  const std::uint64_t before = resident_bytes(path);
  EXPECT_LE(before, kSize);
  if (before == 0) GTEST_SKIP() << "nothing of the file is cached to begin with";
  if (on_tmpfs(path)) GTEST_SKIP() << "tmpfs files cannot leave the page cache";

  ASSERT_FALSE(evict_from_page_cache(path));
  const std::uint64_t after = resident_bytes(path);
  EXPECT_LT(after, before);
  EXPECT_LE(after, kSize / 10) << "eviction left most of the file cached";
  RecordProperty("resident_before", std::to_string(before));
  RecordProperty("resident_after", std::to_string(after));

  // Reading brings it back.
  read_file(path);
  EXPECT_GT(resident_bytes(path), after);
}

TEST(PageCacheTest, ResidentBytesCountsOnlyTheFilesBytes) {
  TempDir dir;
  write_file(dir / "small.bin", random_bytes(100, 1));
  write_file(dir / "empty.bin", {});
  read_file(dir / "small.bin");
  EXPECT_LE(resident_bytes(dir / "small.bin"), 100u);
  EXPECT_EQ(resident_bytes(dir / "empty.bin"), 0u);
  EXPECT_FALSE(evict_from_page_cache(dir / "empty.bin"));
}

TEST(PageCacheTest, MissingFileIsAnError) {
  TempDir dir;
  EXPECT_EQ(evict_from_page_cache(dir / "missing.bin"), std::errc::no_such_file_or_directory);
  try {
    resident_bytes(dir / "missing.bin");
    ADD_FAILURE() << "no exception";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(std::string(e.what()).find("missing.bin"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace feedrate::io
