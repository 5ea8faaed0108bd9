// Hostile datasets through Dataset::open and the Loader: file lists that reach outside their
// folder, labels built to exhaust memory, tar shards with device entries, and the generated
// corpus of broken JPEGs (bench/datagen/jpeg_corpus.h) as an image folder: every bad file is
// skipped with its path and what is wrong with it, every good one delivered once.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bench/datagen/jpeg_corpus.h"
#include "decode/format.h"
#include "decode/status.h"
#include "feedrate/dataset.h"
#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "io/tar_writer.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;
using testing::small_jpeg;
using testing::TempDir;
using testing::write_file;

std::string open_error(const fs::path& source, bool allow_outside = false) {
  try {
    const Dataset dataset = Dataset::open(source, allow_outside);
    return "accepted with " + std::to_string(dataset.size()) + " samples";
  } catch (const Error& e) {
    return e.what();
  }
}

void write_text(const fs::path& path, const std::string& text) {
  write_file(path, {text.begin(), text.end()});
}

TEST(HostileFileList, PathsOutsideTheFolderNeedTheOption) {
  TempDir dir;
  write_file(dir / "outside.jpg", small_jpeg(1));
  write_file(dir / "lists/sub/in.jpg", small_jpeg(2));
  for (const std::string& line :
       std::vector<std::string>{"../outside.jpg 0", "sub/../../outside.jpg 0", "./../outside.jpg 0",
                                (dir / "outside.jpg").string() + " 0"}) {
    SCOPED_TRACE(line);
    write_text(dir / "lists/list.txt", "sub/in.jpg 0\n" + line + "\n");
    const std::string message = open_error(dir / "lists/list.txt");
    EXPECT_NE(message.find("list.txt:2: path"), std::string::npos) << message;
    EXPECT_NE(message.find("outside the list's folder"), std::string::npos) << message;
    EXPECT_NE(message.find("allow_paths_outside_root"), std::string::npos) << message;
    const Dataset allowed = Dataset::open(dir / "lists/list.txt", true);
    ASSERT_EQ(allowed.size(), 2u);
    EXPECT_EQ(fs::weakly_canonical(allowed.files()[1]), fs::weakly_canonical(dir / "outside.jpg"));
  }
  // Names that only look like they climb out stay inside.
  write_file(dir / "lists/..hidden.jpg", small_jpeg(3));
  write_text(dir / "lists/list.txt", "sub/../..hidden.jpg 0\n");
  EXPECT_EQ(Dataset::open(dir / "lists/list.txt").size(), 1u);
}

TEST(HostileFileList, LabelsTooLargeToListAsClassesAreRejected) {
  TempDir dir;
  write_file(dir / "a.jpg", small_jpeg(1));
  for (const std::string label : {"2147483647", "1048576", "99999999999"}) {
    write_text(dir / "list.txt", "a.jpg 1\na.jpg " + label + "\n");
    const std::string message = open_error(dir / "list.txt");
    EXPECT_NE(message.find("list.txt:2: label '" + label + "' is not an integer in [0, 1048575]"),
              std::string::npos)
        << message;
  }
}

// Regression (fuzz_file_list, timeout): "a.jpg 2305138" made the parser list 2.3 million class
// names, seconds per list. The committed input is the fuzzer's, byte for byte.
TEST(HostileFileList, FuzzTimeoutWithALargeLabelIsRejected) {
  TempDir dir;
  write_file(dir / "a.jpg", small_jpeg(1));
  fs::copy_file(
      fs::path(FEEDRATE_SOURCE_DIR) / "tests/fuzz/regressions/file_list/timeout-label-2305138.txt",
      dir / "list.txt");
  const std::string message = open_error(dir / "list.txt");
  EXPECT_NE(message.find("list.txt:1: label '2305138' is not an integer in [0, 1048575]"),
            std::string::npos)
      << message;
}

TEST(HostileTar, HugeLabelsAndDeviceEntriesAreRejectedNamingShardAndMember) {
  TempDir dir;
  const auto jpeg = small_jpeg(1);
  {
    io::TarWriter writer(dir / "labels.tar");
    writer.add("a.jpg", jpeg);
    const std::string label = "2147483647\n";
    writer.add("a.cls", {reinterpret_cast<const unsigned char*>(label.data()), label.size()});
    writer.finish();
  }
  std::string message = open_error(dir / "labels.tar");
  EXPECT_NE(message.find("labels.tar:a.cls: label '2147483647' is not an integer"),
            std::string::npos)
      << message;
  {
    io::TarWriter writer(dir / "device.tar");
    writer.add("a.jpg", jpeg);
    writer.write_raw(io::ustar_header("a.cls", 0, '3'));
    writer.finish();
  }
  message = open_error(dir / "device.tar");
  EXPECT_NE(message.find("device.tar: malformed tar"), std::string::npos) << message;
  EXPECT_NE(message.find("character device"), std::string::npos) << message;
  {
    io::TarWriter writer(dir / "escape.tar");
    writer.add("../../etc/a.jpg", jpeg);
    writer.finish();
  }
  message = open_error(dir / "escape.tar");
  EXPECT_NE(message.find("unsafe member name '../../etc/a.jpg'"), std::string::npos) << message;
}

// The corpus's expected error class, as the loader's messages spell it.
const char* expected_error(datagen::Expect expect) {
  switch (expect) {
    case datagen::Expect::kEmpty:
      return decode::errc_name(decode::DecodeErrc::kEmpty);
    case datagen::Expect::kNotJpeg:  // the loader decodes by content: no JPEG, no other image
      return decode::errc_name(decode::DecodeErrc::kNotImage);
    case datagen::Expect::kCorrupt:
      return decode::errc_name(decode::DecodeErrc::kCorrupt);
    case datagen::Expect::kTruncated:
      return decode::errc_name(decode::DecodeErrc::kTruncated);
    case datagen::Expect::kTooLarge:
      return decode::errc_name(decode::DecodeErrc::kTooLarge);
    case datagen::Expect::kTooManyScans:
      return decode::errc_name(decode::DecodeErrc::kTooManyScans);
    case datagen::Expect::kDecodes:
    case datagen::Expect::kNoCrash:
      break;
  }
  return nullptr;
}

TEST(HostileJpegs, TheBrokenCorpusIsSkippedFileByFileWithItsProblem) {
  TempDir dir;
  const std::vector<datagen::CorpusEntry> corpus = datagen::make_jpeg_corpus();
  datagen::write_jpeg_corpus(corpus, dir / "corpus/all");
  LoaderOptions o;
  o.source = (dir / "corpus").string();
  o.batch_size = 7;
  o.num_workers = 2;
  o.transform.size = 64;
  o.on_bad = BadInputPolicy::kSkip;
  o.pad_shards = false;  // each good file once
  o.rank = 0;
  o.world_size = 1;
  Loader loader(o);
  std::multiset<std::string> delivered;
  std::map<std::string, std::string> skipped;
  while (std::optional<Batch> batch = loader.next()) {
    for (std::uint32_t index : batch->indices()) {
      delivered.insert(fs::path(loader.dataset().describe(index)).filename().string());
    }
  }
  // The run's list: a read whose good samples all went to an earlier batch lists its skips
  // with no batch of its own.
  for (const SkippedSample& s : loader.stats().skipped_samples) {
    skipped[fs::path(s.where).filename().string()] = s.reason;
  }
  for (const datagen::CorpusEntry& entry : corpus) {
    SCOPED_TRACE(entry.name + " (" + entry.why + ")");
    const std::size_t times = delivered.count(entry.name);
    const decode::ImageFormat format = decode::sniff_format(entry.bytes);
    const bool other_format = format != decode::ImageFormat::kJpeg &&
                              format != decode::ImageFormat::kUnknown;  // a PNG named .jpg
    if (entry.expect == datagen::Expect::kDecodes || other_format) {
      EXPECT_EQ(times, 1u);
      EXPECT_EQ(skipped.count(entry.name), 0u) << skipped[entry.name];
    } else if (entry.expect == datagen::Expect::kNoCrash) {
      EXPECT_EQ(times + skipped.count(entry.name), 1u);
    } else {
      EXPECT_EQ(times, 0u);
      ASSERT_EQ(skipped.count(entry.name), 1u);
      const std::string& reason = skipped[entry.name];
      EXPECT_EQ(reason.find(entry.name), std::string::npos) << reason;  // named in `where` only
      EXPECT_NE(reason.find(expected_error(entry.expect)), std::string::npos) << reason;
    }
  }
}

}  // namespace
}  // namespace feedrate
