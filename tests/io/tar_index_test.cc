// Tests for io::index_tar: archives written by GNU tar (gnu and pax formats, long names, nested
// directories, empty members) index to exactly their regular files with offsets that address the
// members' bytes in place; hand-built ustar archives cover the prefix field and pax size records;
// malformed archives (truncated, bad checksum, links, unsafe names, empty or random files) are
// rejected with a TarError that names the archive and the problem.

#include "io/tar_index.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "io/file.h"
#include "io/tar_writer.h"
#include "tests/support/test_data.h"

namespace feedrate::io {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;
using feedrate::testing::read_file;
using feedrate::testing::run_command;
using feedrate::testing::TempDir;
using feedrate::testing::write_file;

Bytes random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes bytes(size);
  for (auto& byte : bytes) byte = static_cast<unsigned char>(rng());
  return bytes;
}

std::vector<TarMember> index_path(const fs::path& path) {
  std::error_code error;
  const File file = File::open(path, error);
  if (error) throw std::runtime_error("cannot open " + path.string() + ": " + error.message());
  return index_tar(file.fd(), path);
}

// The message of the TarError that indexing `path` throws; fails the test if none is thrown.
std::string index_error(const fs::path& path) {
  try {
    const auto members = index_path(path);
    ADD_FAILURE() << path << " was accepted with " << members.size() << " members";
  } catch (const TarError& e) {
    return e.what();
  }
  return "";
}

::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

std::string shell_quote(const fs::path& path) {
  return "'" + path.string() + "'";
}

// Recomputes a header's checksum: the sum of its 512 bytes with the checksum field read as
// spaces, written as six octal digits, NUL, space.
void set_checksum(unsigned char* header) {
  std::memset(header + 148, ' ', 8);
  unsigned sum = 0;
  for (std::size_t i = 0; i < kTarBlockSize; ++i) sum += header[i];
  std::snprintf(reinterpret_cast<char*>(header + 148), 8, "%06o", sum);
  header[155] = ' ';
}

// Replaces the name field of the header at `offset` and fixes its checksum.
void set_name(Bytes& archive, std::size_t offset, const std::string& name) {
  ASSERT_LE(name.size(), 100u);
  unsigned char* header = archive.data() + offset;
  std::memset(header, 0, 100);
  std::memcpy(header, name.data(), name.size());
  set_checksum(header);
}

void write_padded(TarWriter& writer, std::span<const unsigned char> data) {
  writer.write_raw(data);
  const Bytes zeros((kTarBlockSize - data.size() % kTarBlockSize) % kTarBlockSize, 0);
  writer.write_raw(zeros);
}

// A pax record "<length> <key>=<value>\n" whose length counts itself.
std::string pax_record(const std::string& key, const std::string& value) {
  const std::size_t body = key.size() + value.size() + 3;  // space, '=', newline
  std::size_t length = body + 1;
  while (std::to_string(length).size() + body != length) ++length;
  return std::to_string(length) + " " + key + "=" + value + "\n";
}

// Checks that `members` are `expected` (name, content) in order, and that each member's range
// of the archive holds its content.
void expect_members(const fs::path& archive, const std::vector<TarMember>& members,
                    const std::vector<std::pair<std::string, Bytes>>& expected) {
  const Bytes bytes = read_file(archive);
  ASSERT_EQ(members.size(), expected.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    SCOPED_TRACE("member " + std::to_string(i) + " " + expected[i].first);
    EXPECT_EQ(members[i].name, expected[i].first);
    ASSERT_EQ(members[i].size, expected[i].second.size());
    EXPECT_EQ(members[i].offset % kTarBlockSize, 0u);
    ASSERT_LE(members[i].offset + members[i].size, bytes.size());
    const Bytes data(
        bytes.begin() + static_cast<std::ptrdiff_t>(members[i].offset),
        bytes.begin() + static_cast<std::ptrdiff_t>(members[i].offset + members[i].size));
    EXPECT_TRUE(data == expected[i].second) << "member bytes differ from the file's";
  }
}

bool has_bytes(const Bytes& haystack, const std::string& needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) !=
         haystack.end();
}

class GnuTarTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (run_command("tar --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no tar command";
    long_name_ = "sub/" + std::string(130, 'L') + "_long.jpg";
    files_ = {
        {"small.txt", random_bytes(3000, 1)},
        {"empty.bin", {}},
        {"sub/deeper/nested.bin", random_bytes(512, 2)},
        {long_name_, random_bytes(1234, 3)},
        {"sub/after_long.bin", random_bytes(700, 4)},
        {"sub/" + std::string(96, 'h'), random_bytes(10, 6)},  // exactly fills the name field
    };
    for (const auto& [name, bytes] : files_) write_file(dir_ / ("root/" + name), bytes);
  }

  // Archives the files with `tar <options>`, directories listed before their contents.
  fs::path make_archive(const std::string& options) {
    const fs::path archive = dir_ / "archive.tar";
    std::string command = "tar " + options + " --no-recursion -cf " + shell_quote(archive) +
                          " -C " + shell_quote(dir_ / "root") +
                          " small.txt empty.bin sub sub/deeper";
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on `" " + string`.
    for (std::size_t i = 2; i < files_.size(); ++i) {
      command += ' ';
      command += shell_quote(files_[i].first);
    }
    EXPECT_EQ(run_command(command), 0) << command;
    return archive;
  }

  TempDir dir_;
  std::string long_name_;
  std::vector<std::pair<std::string, Bytes>> files_;
};

TEST_F(GnuTarTest, GnuFormatListsRegularFilesInOrder) {
  const fs::path archive = make_archive("--format=gnu");
  // The archive really uses a GNU long-name entry for the long name.
  ASSERT_TRUE(has_bytes(read_file(archive), "././@LongLink"));
  const auto members = index_path(archive);
  expect_members(archive, members, files_);
  for (const TarMember& member : members) {
    EXPECT_NE(member.name, "sub/");
    EXPECT_NE(member.name, "sub/deeper/");
  }
}

TEST_F(GnuTarTest, PaxFormatWithLongName) {
  const fs::path archive = make_archive("--format=pax");
  ASSERT_TRUE(has_bytes(read_file(archive), " path=" + long_name_ + "\n"));
  expect_members(archive, index_path(archive), files_);
}

TEST_F(GnuTarTest, UstarFormatUsesThePrefixField) {
  // ustar splits a long path with short components between the prefix and name fields.
  const std::string nested = "sub/" + std::string(60, 'p') + "/" + std::string(60, 'q') + ".bin";
  const Bytes content = random_bytes(100, 5);
  write_file(dir_ / ("root/" + nested), content);
  const fs::path archive = dir_ / "ustar.tar";
  const std::string command = "tar --format=ustar --no-recursion -cf " + shell_quote(archive) +
                              " -C " + shell_quote(dir_ / "root") + " small.txt " +
                              shell_quote(nested);
  ASSERT_EQ(run_command(command), 0) << command;
  expect_members(archive, index_path(archive), {files_[0], {nested, content}});
}

TEST_F(GnuTarTest, TruncatedInsideMemberData) {
  const fs::path archive = make_archive("--format=gnu");
  const auto members = index_path(archive);
  ASSERT_EQ(members.size(), files_.size());
  Bytes bytes = read_file(archive);
  // Cut in the middle of small.txt's 3000 bytes.
  bytes.resize(members[0].offset + 1500);
  write_file(archive, bytes);
  const std::string message = index_error(archive);
  EXPECT_TRUE(contains(message, archive.string()));
  EXPECT_TRUE(contains(message, "truncated"));
}

TEST_F(GnuTarTest, TruncatedInsideLaterMemberOrHeader) {
  const fs::path archive = make_archive("--format=gnu");
  const auto members = index_path(archive);
  ASSERT_EQ(members.size(), files_.size());
  const Bytes full = read_file(archive);

  Bytes bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(members.back().offset + 1));
  write_file(archive, bytes);
  std::string message = index_error(archive);
  EXPECT_TRUE(contains(message, archive.string()));
  EXPECT_TRUE(contains(message, "truncated"));

  // Cut inside the last member's header block.
  bytes.assign(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(members.back().offset -
                                                                        kTarBlockSize + 100));
  write_file(archive, bytes);
  message = index_error(archive);
  EXPECT_TRUE(contains(message, archive.string()));
  EXPECT_TRUE(contains(message, "truncated"));
}

TEST_F(GnuTarTest, APrefixOfACutArchiveKeepsTheMembersWholeBeforeTheCut) {
  const fs::path archive = make_archive("--format=gnu");
  const auto members = index_path(archive);
  const Bytes full = read_file(archive);
  const auto prefix = [&](std::uint64_t bytes, std::string& cut) {
    write_file(archive, Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(bytes)));
    std::error_code error;
    const File file = File::open(archive, error);
    return index_tar_prefix(file.fd(), archive, cut);
  };
  std::string cut;
  // Inside the last member's data, then inside its header block: the others are whole.
  for (const std::uint64_t at : {members.back().offset + 1, members.back().offset - 100}) {
    const auto kept = prefix(at, cut);
    ASSERT_EQ(kept.size(), members.size() - 1) << at;
    for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i].name, members[i].name);
    EXPECT_TRUE(contains(cut, "truncated tar")) << cut;
    EXPECT_FALSE(contains(cut, archive.string()));
  }
  EXPECT_TRUE(prefix(0, cut).empty());
  EXPECT_EQ(cut, "malformed tar at byte 0: empty file");
  EXPECT_EQ(prefix(full.size(), cut).size(), members.size());
  EXPECT_EQ(cut, "");
}

TEST_F(GnuTarTest, CorruptedHeaderChecksum) {
  const fs::path archive = make_archive("--format=gnu");
  const auto members = index_path(archive);
  ASSERT_EQ(members.size(), files_.size());
  const Bytes good = read_file(archive);

  // A changed byte in the name of the second member's header.
  Bytes bytes = good;
  bytes[members[1].offset - kTarBlockSize] ^= 0x01;
  write_file(archive, bytes);
  std::string message = index_error(archive);
  EXPECT_TRUE(contains(message, archive.string()));
  EXPECT_TRUE(contains(message, "checksum"));

  // A changed digit of the stored checksum of the first header.
  bytes = good;
  bytes[148 + 5] = bytes[148 + 5] == '0' ? '1' : '0';
  write_file(archive, bytes);
  message = index_error(archive);
  EXPECT_TRUE(contains(message, "checksum"));
}

TEST_F(GnuTarTest, SymbolicLinkIsRejected) {
  fs::create_symlink("small.txt", dir_ / "root/link.txt");
  const fs::path archive = dir_ / "links.tar";
  const std::string command = "tar --no-recursion -cf " + shell_quote(archive) + " -C " +
                              shell_quote(dir_ / "root") + " small.txt link.txt";
  ASSERT_EQ(run_command(command), 0) << command;
  const std::string message = index_error(archive);
  EXPECT_TRUE(contains(message, archive.string()));
  EXPECT_TRUE(contains(message, "symbolic link"));
  EXPECT_TRUE(contains(message, "link.txt"));
}

TEST_F(GnuTarTest, HardLinkIsRejected) {
  fs::create_hard_link(dir_ / "root/small.txt", dir_ / "root/hard.txt");
  const fs::path archive = dir_ / "links.tar";
  const std::string command = "tar --no-recursion -cf " + shell_quote(archive) + " -C " +
                              shell_quote(dir_ / "root") + " small.txt hard.txt";
  ASSERT_EQ(run_command(command), 0) << command;
  const std::string message = index_error(archive);
  EXPECT_TRUE(contains(message, "hard link"));
  EXPECT_TRUE(contains(message, "hard.txt"));
}

TEST_F(GnuTarTest, DirectoriesOnlyGiveNoMembers) {
  const fs::path archive = dir_ / "dirs.tar";
  const std::string command = "tar --no-recursion -cf " + shell_quote(archive) + " -C " +
                              shell_quote(dir_ / "root") + " sub sub/deeper";
  ASSERT_EQ(run_command(command), 0) << command;
  EXPECT_TRUE(index_path(archive).empty());
}

class HandMadeTarTest : public ::testing::Test {
 protected:
  // An archive of the two members `first_` and `second_`, made with TarWriter.
  fs::path write_archive(const std::string& name = "archive.tar") {
    const fs::path archive = dir_ / name;
    TarWriter writer(archive);
    writer.add("first.bin", first_);
    writer.add("second.bin", second_);
    writer.finish();
    return archive;
  }

  TempDir dir_;
  Bytes first_ = random_bytes(1000, 21);
  Bytes second_ = random_bytes(600, 22);
};

TEST_F(HandMadeTarTest, TarWriterArchiveIsIndexed) {
  const fs::path archive = write_archive();
  expect_members(archive, index_path(archive), {{"first.bin", first_}, {"second.bin", second_}});
}

TEST_F(HandMadeTarTest, UnsafeNamesAreRejected) {
  const fs::path archive = write_archive();
  const Bytes good = read_file(archive);
  const std::size_t second_header = kTarBlockSize + 1024;  // 1000 bytes padded to 1024
  for (const std::string name :
       {"../evil.bin", "a/../../evil.bin", "a/b/..", "..", "/etc/evil.bin", "/abs", "x/../y"}) {
    for (const std::size_t header : {std::size_t{0}, second_header}) {
      SCOPED_TRACE("name '" + name + "' in the header at " + std::to_string(header));
      Bytes bytes = good;
      set_name(bytes, header, name);
      write_file(archive, bytes);
      const std::string message = index_error(archive);
      EXPECT_TRUE(contains(message, archive.string()));
      EXPECT_TRUE(contains(message, "unsafe"));
    }
  }
}

TEST_F(HandMadeTarTest, NamesThatOnlyLookUnsafeAreAccepted) {
  const fs::path archive = write_archive();
  const Bytes good = read_file(archive);
  for (const std::string name : {"..hidden", "a..b/c", "a/b../c", "./x", "dir/...", "a.."}) {
    SCOPED_TRACE("name '" + name + "'");
    Bytes bytes = good;
    set_name(bytes, 0, name);
    write_file(archive, bytes);
    expect_members(archive, index_path(archive), {{name, first_}, {"second.bin", second_}});
  }
}

TEST_F(HandMadeTarTest, UnsafeLongNameIsRejected) {
  const fs::path archive = dir_ / "long.tar";
  {
    TarWriter writer(archive);
    const std::string name = std::string(120, 'a') + "/../../../evil.bin";
    Bytes long_data(name.begin(), name.end());
    long_data.push_back('\0');
    auto header = ustar_header("././@LongLink", long_data.size(), 'L');
    writer.write_raw(header);
    write_padded(writer, long_data);
    writer.add("evil.bin", first_);
    writer.finish();
  }
  const std::string message = index_error(archive);
  EXPECT_TRUE(contains(message, "unsafe"));
}

TEST_F(HandMadeTarTest, UstarPrefixIsJoinedToTheName) {
  const fs::path archive = write_archive();
  Bytes bytes = read_file(archive);
  const std::string prefix = "some/prefix/dir";
  std::memcpy(bytes.data() + 345, prefix.data(), prefix.size());
  set_checksum(bytes.data());
  write_file(archive, bytes);
  expect_members(archive, index_path(archive),
                 {{"some/prefix/dir/first.bin", first_}, {"second.bin", second_}});
}

TEST_F(HandMadeTarTest, PaxPathAndSizeRecordsOverrideTheHeader) {
  const fs::path archive = dir_ / "pax.tar";
  const std::string long_name = "pax/" + std::string(150, 'n') + ".jpg";
  const Bytes data = random_bytes(1700, 23);
  {
    TarWriter writer(archive);
    writer.add("before.bin", first_);
    const std::string records = pax_record("mtime", "0.5") + pax_record("path", long_name) +
                                pax_record("size", std::to_string(data.size()));
    const Bytes record_bytes(records.begin(), records.end());
    writer.write_raw(ustar_header("PaxHeaders/x", record_bytes.size(), 'x'));
    write_padded(writer, record_bytes);
    // The ustar header's own size field says 0: the pax size record wins.
    writer.write_raw(ustar_header("truncated_name.jpg", 0));
    write_padded(writer, data);
    writer.add("after.bin", second_);
    writer.finish();
  }
  expect_members(archive, index_path(archive),
                 {{"before.bin", first_}, {long_name, data}, {"after.bin", second_}});
}

// Writes a pax extended header holding `records` verbatim, followed by first.bin.
void write_pax_archive(const fs::path& archive, const std::string& records, const Bytes& data) {
  TarWriter writer(archive);
  const Bytes record_bytes(records.begin(), records.end());
  writer.write_raw(ustar_header("PaxHeaders/x", record_bytes.size(), 'x'));
  write_padded(writer, record_bytes);
  writer.add("first.bin", data);
  writer.finish();
}

TEST_F(HandMadeTarTest, MalformedPaxRecordsAreRejected) {
  const fs::path archive = dir_ / "pax.tar";
  for (const std::string records : {"x", "13 path=abc\n", "99 path=abc\n", "1 \n", "0 \n",
                                    "9 size=x\n", "11 size=-1\n", "a2 path=b\n"}) {
    SCOPED_TRACE("records '" + records + "'");
    write_pax_archive(archive, records, first_);
    const std::string message = index_error(archive);
    EXPECT_TRUE(contains(message, archive.string()));
    EXPECT_TRUE(contains(message, "pax"));
  }
}

// Regression: parse_pax accepted a record whose length covers only its length digits and the
// space ("2 ") and then read past the end of the buffer (AddressSanitizer: stack-buffer-overflow);
// records that did not end with a newline were accepted too, their last byte dropped ("9 path=ab"
// named the member "a").
TEST_F(HandMadeTarTest, PaxRecordsWithoutNewlineAreRejected) {
  const fs::path archive = dir_ / "pax.tar";
  for (const std::string records : {"2 ", "9 path=ab", "12 path=abc\n3 x"}) {
    SCOPED_TRACE("records '" + records + "'");
    write_pax_archive(archive, records, first_);
    EXPECT_TRUE(contains(index_error(archive), "pax"));
  }
}

TEST_F(HandMadeTarTest, PaxGlobalHeaderIsSkipped) {
  const fs::path archive = dir_ / "global.tar";
  {
    TarWriter writer(archive);
    const std::string records = pax_record("comment", "hello");
    const Bytes record_bytes(records.begin(), records.end());
    writer.write_raw(ustar_header("pax_global_header", record_bytes.size(), 'g'));
    write_padded(writer, record_bytes);
    writer.add("first.bin", first_);
    writer.finish();
  }
  expect_members(archive, index_path(archive), {{"first.bin", first_}});
}

TEST_F(HandMadeTarTest, MissingEndOfArchiveBlocksAreAccepted) {
  const fs::path archive = write_archive();
  Bytes bytes = read_file(archive);
  ASSERT_EQ(bytes.size(), kTarBlockSize + 1024 + kTarBlockSize + 1024 + 2 * kTarBlockSize);
  // One end block left, then none.
  for (int blocks : {1, 2}) {
    SCOPED_TRACE(std::to_string(blocks) + " end blocks removed");
    Bytes cut(bytes.begin(), bytes.end() - blocks * static_cast<std::ptrdiff_t>(kTarBlockSize));
    write_file(archive, cut);
    expect_members(archive, index_path(archive), {{"first.bin", first_}, {"second.bin", second_}});
  }
}

TEST_F(HandMadeTarTest, DataAfterEndOfArchiveIsIgnored) {
  const fs::path archive = write_archive();
  Bytes bytes = read_file(archive);
  const Bytes junk = random_bytes(3000, 24);
  bytes.insert(bytes.end(), junk.begin(), junk.end());
  write_file(archive, bytes);
  expect_members(archive, index_path(archive), {{"first.bin", first_}, {"second.bin", second_}});
}

TEST_F(HandMadeTarTest, BadSizeFieldIsRejected) {
  const fs::path archive = write_archive();
  Bytes bytes = read_file(archive);
  std::memcpy(bytes.data() + 124, "00000z01750", 11);
  set_checksum(bytes.data());
  write_file(archive, bytes);
  const std::string message = index_error(archive);
  EXPECT_TRUE(contains(message, archive.string()));
  EXPECT_TRUE(contains(message, "size"));
}

TEST_F(HandMadeTarTest, HugeSizeFieldIsRejectedAsTruncated) {
  const fs::path archive = write_archive();
  Bytes bytes = read_file(archive);
  std::memcpy(bytes.data() + 124, "77777777777", 11);
  set_checksum(bytes.data());
  write_file(archive, bytes);
  EXPECT_TRUE(contains(index_error(archive), "truncated"));
}

TEST_F(HandMadeTarTest, EmptyFileIsRejected) {
  const fs::path archive = dir_ / "empty.tar";
  write_file(archive, {});
  EXPECT_TRUE(contains(index_error(archive), archive.string()));
}

TEST_F(HandMadeTarTest, RandomBytesAreRejected) {
  for (const std::size_t size : {std::size_t{100}, std::size_t{4096}, std::size_t{5000}}) {
    for (std::uint32_t seed = 1; seed <= 5; ++seed) {
      SCOPED_TRACE(std::to_string(size) + " random bytes, seed " + std::to_string(seed));
      const fs::path archive = dir_ / "random.tar";
      write_file(archive, random_bytes(size, seed));
      EXPECT_TRUE(contains(index_error(archive), archive.string()));
    }
  }
}

// ---- Hostile archives: entries that are not regular files, and size fields built to overflow.

TEST_F(HandMadeTarTest, DevicesFifosAndOtherEntryTypesAreRejected) {
  const fs::path archive = dir_ / "types.tar";
  for (const auto& [type, what] :
       std::vector<std::pair<char, std::string>>{{'3', "character device"},
                                                 {'4', "block device"},
                                                 {'6', "FIFO"},
                                                 {'1', "hard link"},
                                                 {'2', "symbolic link"},
                                                 {'K', "unknown"},  // GNU long link name
                                                 {'S', "unknown"},  // GNU sparse file
                                                 {'V', "unknown"}}) {
    SCOPED_TRACE(std::string("type '") + type + "'");
    {
      TarWriter writer(archive);
      writer.add("first.bin", first_);
      writer.write_raw(ustar_header("dev/sda", 0, type));
      writer.finish();
    }
    const std::string message = index_error(archive);
    EXPECT_TRUE(contains(message, archive.string()));
    EXPECT_TRUE(contains(message, "at byte 1536"));  // the second header
    EXPECT_TRUE(contains(message, what));
    EXPECT_TRUE(contains(message, "dev/sda"));
  }
}

TEST_F(HandMadeTarTest, Base256SizesThatOverflowOrPointPastTheEndAreRejected) {
  const fs::path archive = write_archive();
  const Bytes good = read_file(archive);
  struct Case {
    std::array<unsigned char, 12> field;
    const char* expected;
  };
  std::array<unsigned char, 12> past_end{0x80}, huge{0x80}, overflow{0xBF}, negative{0xFF};
  past_end[10] = 0x40;  // 16 KiB: more than the archive holds
  huge[4] = 0x7F;       // about 2^63 bytes
  overflow.fill(0xFF);  // 2^94 - 1: more than 64 bits
  overflow[0] = 0xBF;
  negative.fill(0xFF);
  for (const Case& c : {Case{past_end, "truncated"}, Case{huge, "truncated"},
                        Case{overflow, "bad size field"}, Case{negative, "bad size field"}}) {
    Bytes bytes = good;
    std::memcpy(bytes.data() + 124, c.field.data(), c.field.size());
    set_checksum(bytes.data());
    write_file(archive, bytes);
    const std::string message = index_error(archive);
    EXPECT_TRUE(contains(message, archive.string()));
    EXPECT_TRUE(contains(message, c.expected));
  }
  // A base-256 size that is right is read as one.
  Bytes bytes = good;
  std::array<unsigned char, 12> exact{0x80};
  exact[10] = static_cast<unsigned char>(first_.size() >> 8);
  exact[11] = static_cast<unsigned char>(first_.size());
  std::memcpy(bytes.data() + 124, exact.data(), exact.size());
  set_checksum(bytes.data());
  write_file(archive, bytes);
  expect_members(archive, index_path(archive), {{"first.bin", first_}, {"second.bin", second_}});
}

TEST_F(HandMadeTarTest, PaxSizesThatOverflowOrPointPastTheEndAreRejected) {
  const fs::path archive = dir_ / "pax.tar";
  write_pax_archive(archive, pax_record("size", "99999999999999999999999"), first_);
  EXPECT_TRUE(contains(index_error(archive), "bad pax size"));
  write_pax_archive(archive, pax_record("size", "1000000"), first_);
  const std::string message = index_error(archive);
  EXPECT_TRUE(contains(message, "member needs 1000000 bytes"));
  EXPECT_TRUE(contains(message, "truncated"));
}

TEST_F(HandMadeTarTest, MetadataEntriesCannotAskForHugeAllocations) {
  // A GNU long name or pax header that declares a gigabyte is refused before reading it.
  const fs::path archive = dir_ / "long.tar";
  {
    TarWriter writer(archive);
    writer.write_raw(ustar_header("././@LongLink", 1000, 'L'));
    writer.write_raw(Bytes(1024, 'a'));
    writer.add("first.bin", first_);
    writer.finish();
  }
  Bytes bytes = read_file(archive);
  std::memcpy(bytes.data() + 124, "00000077777", 11);  // 32767 bytes: more than the file has
  set_checksum(bytes.data());
  write_file(archive, bytes);
  EXPECT_TRUE(contains(index_error(archive), "truncated"));
  // Within the file but above 1 MiB.
  Bytes big = read_file(archive);
  big.resize(big.size() + (std::size_t{2} << 20), 0);
  std::memcpy(big.data() + 124, "00010000000", 11);  // 2 MiB
  set_checksum(big.data());
  write_file(archive, big);
  EXPECT_TRUE(contains(index_error(archive), "metadata entry larger than 1 MiB"));
}

TEST(TarIndexTest, UnreadableDescriptorThrowsTarError) {
  EXPECT_THROW(index_tar(-1, "nothing.tar"), TarError);
}

}  // namespace
}  // namespace feedrate::io
