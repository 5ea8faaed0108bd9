// The pack's index.json (loader/dataset/pack_index.h): every field round-trips; a folder without
// one, or with another tool's index.json, has no index; a damaged index is an error naming the file
// and what is wrong, also when a dataset of tar shards is opened beside it.
#include "loader/dataset/pack_index.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "feedrate/dataset.h"
#include "feedrate/error.h"
#include "io/tar_writer.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

PackIndex sample_index() {
  PackIndex index;
  index.source = "/data/train";
  index.source_samples = 7;
  index.samples = 6;
  index.options = {512, 85, 4, 256};
  index.shards = {{"shard-000000.tar", 0, 4, 10240, {}, {}},
                  {"shard-000001.tar", 4, 2, 5120, {}, {}}};
  index.shards[1].tar = {{"k.jpg", 512, 100, ""}, {"k.cls", 1024, 2, "7\n"}};
  index.counts = {3, 2, 1, 1};
  index.skipped = {{5, "/data/train/a/x.jpg", "not a JPEG"}};
  index.resized = {{1, 1024, 768}, {3, 800, 1200}};
  index.source_bytes = 70000;
  index.image_bytes = 60000;
  index.shard_bytes = 15360;
  return index;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string error_of(const fs::path& folder) {
  try {
    read_pack_index(folder);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << folder;
  return "";
}

TEST(PackIndex, EveryFieldRoundTrips) {
  testing::TempDir dir;
  const PackIndex written = sample_index();
  write_pack_index(dir.path(), written);
  EXPECT_FALSE(fs::exists(dir / "index.json.tmp"));
  const std::optional<PackIndex> read = read_pack_index(dir.path());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->version, kPackIndexVersion);
  EXPECT_EQ(read->source, written.source);
  EXPECT_EQ(read->source_samples, 7u);
  EXPECT_EQ(read->samples, 6u);
  EXPECT_EQ(read->options.max_side, 512);
  EXPECT_EQ(read->options.quality, 85);
  EXPECT_EQ(read->options.restart_mcus, 4);
  EXPECT_EQ(read->options.shard_mb, 256);
  ASSERT_EQ(read->shards.size(), 2u);
  EXPECT_EQ(read->shards[1].name, "shard-000001.tar");
  EXPECT_EQ(read->shards[1].first, 4u);
  EXPECT_EQ(read->shards[1].samples, 2u);
  EXPECT_EQ(read->shards[1].bytes, 5120u);
  EXPECT_EQ(read->counts.lossless, 3u);
  EXPECT_EQ(read->counts.resized, 2u);
  EXPECT_EQ(read->counts.unchanged, 1u);
  EXPECT_EQ(read->counts.skipped, 1u);
  ASSERT_EQ(read->skipped.size(), 1u);
  EXPECT_EQ(read->skipped[0].index, 5u);
  EXPECT_EQ(read->skipped[0].source, "/data/train/a/x.jpg");
  EXPECT_EQ(read->skipped[0].error, "not a JPEG");
  ASSERT_EQ(read->resized.size(), 2u);
  EXPECT_EQ(read->resized[1].index, 3u);
  EXPECT_EQ(read->resized[1].source_width, 800);
  EXPECT_EQ(read->resized[1].source_height, 1200);
  EXPECT_EQ(read->source_bytes, 70000u);
  EXPECT_EQ(read->image_bytes, 60000u);
  EXPECT_EQ(read->shard_bytes, 15360u);
  EXPECT_TRUE(read->shards[0].tar.empty());
  ASSERT_EQ(read->shards[1].tar.size(), 2u);
  EXPECT_EQ(read->shards[1].tar[1].name, "k.cls");
  EXPECT_EQ(read->shards[1].tar[1].offset, 1024u);
  EXPECT_EQ(read->shards[1].tar[1].size, 2u);
  EXPECT_EQ(read->shards[1].tar[1].text, "7\n");
  EXPECT_EQ(read->shards[1].tar[0].text, "");
  EXPECT_FALSE(lists_archives(*read));
  EXPECT_EQ(read->shard("shard-000000.tar")->samples, 4u);
  EXPECT_EQ(read->shard("shard-000002.tar"), nullptr);
}

TEST(PackIndex, AFolderWithoutOneOrWithAnotherToolsHasNone) {
  testing::TempDir dir;
  EXPECT_FALSE(read_pack_index(dir.path()));
  write_text(dir / "index.json", R"({"shards": ["a.tar"], "format": "other-tool"})");
  EXPECT_FALSE(read_pack_index(dir.path()));
  write_text(dir / "index.json", R"(["a.tar", "b.tar"])");
  EXPECT_FALSE(read_pack_index(dir.path()));
}

TEST(PackIndex, ADamagedIndexIsAnErrorNamingTheFileAndTheProblem) {
  testing::TempDir dir;
  const std::string file = (dir / "index.json").string();
  write_pack_index(dir.path(), sample_index());
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  write_text(file, text.substr(0, text.size() / 2));  // cut short
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find(file), std::string::npos) << message;
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
  EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;

  // A number too large for a double (the JSON library's out_of_range, found by fuzz_pack_index).
  write_text(file, "2222e" + std::string(35, '2') + "{\x01a ;}");
  message = error_of(dir.path());
  EXPECT_NE(message.find(file), std::string::npos) << message;
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;

  // The index with its first `from` replaced by `to`: the error it reads with.
  const auto error_with = [&](const std::string& from, const std::string& to) {
    std::string edited = text;
    const std::size_t at = edited.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) edited.replace(at, from.size(), to);
    write_text(file, edited);
    return error_of(dir.path());
  };
  message = error_with("\"samples\": 4", "\"samples\": \"4\"");
  EXPECT_NE(message.find(file), std::string::npos) << message;
  EXPECT_NE(message.find("shards[0].samples is not a non-negative integer"), std::string::npos)
      << message;
  message = error_with("\"shard_bytes\"", "\"other\"");
  EXPECT_NE(message.find("shard_bytes is missing"), std::string::npos) << message;
  message = error_with("\"version\": 3", "\"version\": 4");
  EXPECT_NE(message.find(file), std::string::npos) << message;
  EXPECT_NE(message.find("version 4"), std::string::npos) << message;
  message = error_with("\"bytes\": 10240", "\"bytes\": 10240, \"tar\": [[\"a.jpg\", 512]]");
  EXPECT_NE(message.find("a tar entry is not [name, offset, size]"), std::string::npos) << message;
}

TEST(PackIndex, TarShardsBesideADamagedIndexAreRefusedNamingIt) {
  testing::TempDir dir;
  {
    io::TarWriter tar(dir / "shard-000000.tar");
    tar.add("00000000.jpg", testing::small_jpeg(1));
    tar.add("00000000.cls", std::vector<unsigned char>{'0', '\n'});
  }
  EXPECT_EQ(Dataset::open(dir.path().string()).size(), 1u);  // no index: nothing to check
  write_text(dir / "index.json", R"({"format": "feedrate-pack", "version": 1, "sour)");
  try {
    Dataset::open(dir.path().string());
    FAIL() << "a damaged index.json was ignored";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "index.json").string()), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace feedrate
