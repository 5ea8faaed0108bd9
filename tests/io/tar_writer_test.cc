// The ustar writer (io/tar_writer.h): archives read back by an independent reader and by GNU tar,
// the 100-byte name limit, the end marker written by finish() or the destructor, raw bytes for
// malformed archives, and errors that name the file.
#include "io/tar_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;
using feedrate::testing::read_tar;
using feedrate::testing::tar_list;
using feedrate::testing::TempDir;

Bytes to_bytes(const std::string& s) {
  return Bytes(s.begin(), s.end());
}

TEST(TarWriter, ArchivesReadBack) {
  const TempDir dir;
  const fs::path path = dir / "a.tar";
  const std::string long_name(100, 'n');
  {
    TarWriter tar(path);
    tar.add("x.jpg", to_bytes("hello"));
    tar.add("empty.cls", {});
    tar.add(long_name, Bytes(512, 7));
    EXPECT_THROW(tar.add(std::string(101, 'n'), to_bytes("x")), std::invalid_argument);
    EXPECT_THROW(tar.add("", to_bytes("x")), std::invalid_argument);
    tar.finish();
    EXPECT_EQ(tar.bytes_written(), fs::file_size(path));
    EXPECT_THROW(tar.add("late", to_bytes("x")), std::logic_error);
  }
  const auto members = read_tar(path);
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0], std::pair(std::string("x.jpg"), to_bytes("hello")));
  EXPECT_EQ(members[1], std::pair(std::string("empty.cls"), Bytes{}));
  EXPECT_EQ(members[2], std::pair(long_name, Bytes(512, 7)));
  EXPECT_EQ(fs::file_size(path), 512u * (2 + 1 + 2 + 2));  // headers, data blocks, end marker
  EXPECT_EQ(tar_list(path), (std::vector<std::string>{"x.jpg", "empty.cls", long_name}));
}

TEST(TarWriter, DestructorFinishes) {
  const TempDir dir;
  const fs::path path = dir / "b.tar";
  { TarWriter(path).add("a", to_bytes("1")); }
  EXPECT_EQ(read_tar(path).size(), 1u);
}

TEST(TarWriter, RawBytesMakeMalformedArchives) {
  const TempDir dir;
  const fs::path path = dir / "truncated.tar";
  {
    TarWriter tar(path);
    const auto header = ustar_header("cut.jpg", 1000);
    tar.write_raw(header);
    tar.write_raw(Bytes(10, 1));  // 990 bytes short
  }
  EXPECT_EQ(fs::file_size(path), 512u + 10 + 1024);
}

TEST(TarWriter, AnUncreatableFileIsAnErrorNamingIt) {
  const TempDir dir;
  const fs::path path = dir / "missing" / "x.tar";
  try {
    TarWriter tar(path);
    FAIL() << "created " << path;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace feedrate::io
