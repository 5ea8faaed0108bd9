// `feedrate pack`, run as a user runs it: a mixed-format ImageFolder packed into several shards
// keeps every sample's index, label and pixels (JPEGs packed with a restart index, the other
// formats unchanged); index.json lists every member at its offset in its shard; a second run
// restarts; a folder with other files is refused; a bad source
// file stops the pack naming it, or is left out and listed under --on-bad skip; --max-side caps
// the longer side; a shard that no longer matches index.json is refused when it is read.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "decode/decoder.h"
#include "decode/restart_index.h"
#include "feedrate/dataset.h"
#include "feedrate/error.h"
#include "io/file.h"
#include "io/tar_writer.h"
#include "tests/bench/cli_run.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

std::vector<std::uint8_t> read_sample(const Dataset& dataset, std::size_t i) {
  const SampleRef& ref = dataset.sample(i);
  std::vector<std::uint8_t> bytes(ref.size);
  std::error_code error;
  const io::File file = io::File::open(dataset.files()[ref.file], error);
  EXPECT_FALSE(error) << dataset.describe(i);
  io::pread_exact(file.fd(), ref.offset, bytes.data(), bytes.size(), error);
  EXPECT_FALSE(error) << dataset.describe(i);
  return bytes;
}

nlohmann::json read_index(const fs::path& out) {
  std::ifstream file(out / "index.json");
  return nlohmann::json::parse(file);
}

TEST(PackCli, KeepsOrderLabelsAndPixelsAcrossShards) {
  testing::TempDir dir;
  const std::string source = (dir / "src").string(), out = (dir / "packed").string();
  ASSERT_EQ(run_cli("make-dataset " + source + " --count 24 --classes 3 --mixed-formats").status,
            0);
  for (int round = 0; round < 2; ++round) {  // the second run restarts over the first's output
    const testing::CliResult packed =
        run_cli("pack " + source + " " + out + " --shard-mb 1 --workers 2");
    ASSERT_EQ(packed.status, 0) << packed.output;
  }
  const Dataset original = Dataset::open(source);
  const Dataset packed = Dataset::open(out);
  ASSERT_EQ(packed.format(), DatasetFormat::kTarShards);
  ASSERT_EQ(packed.size(), original.size());
  EXPECT_GT(packed.files().size(), 1u);
  const nlohmann::json index = read_index(out);
  EXPECT_EQ(index["samples"], original.size());
  EXPECT_EQ(index["shards"].size(), packed.files().size());
  EXPECT_GT(index["counts"]["lossless"].get<int>(), 0);
  EXPECT_GT(index["counts"]["unchanged"].get<int>(), 0);
  decode::Decoder decoder;
  std::vector<std::uint8_t> want, got;
  int with_index = 0;
  for (std::size_t i = 0; i < original.size(); ++i) {
    SCOPED_TRACE(original.describe(i) + " -> " + packed.describe(i));
    EXPECT_EQ(packed.sample(i).label, original.sample(i).label);
    const std::vector<std::uint8_t> source_bytes = read_sample(original, i);
    const std::vector<std::uint8_t> packed_bytes = read_sample(packed, i);
    ASSERT_TRUE(decoder.decode_full(source_bytes, want).ok());
    ASSERT_TRUE(decoder.decode_full(packed_bytes, got).ok());
    EXPECT_EQ(got, want);
    decode::RestartIndex restart;
    bool found = false;
    ASSERT_TRUE(decode::read_restart_index(packed_bytes, restart, found).ok());
    with_index += found ? 1 : 0;
  }
  EXPECT_EQ(with_index, index["counts"]["lossless"].get<int>());
  for (const fs::directory_entry& entry : fs::directory_iterator(out)) {
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  }
}

TEST(PackCli, TheIndexListsEveryMemberAtItsOffsetInTheShard) {
  testing::TempDir dir;
  const std::string source = (dir / "src").string(), out = (dir / "packed").string();
  ASSERT_EQ(run_cli("make-dataset " + source + " --count 24 --classes 3 --mixed-formats").status,
            0);
  const testing::CliResult packed_run =
      run_cli("pack " + source + " " + out + " --shard-mb 1 --workers 2");
  ASSERT_EQ(packed_run.status, 0) << packed_run.output;
  const nlohmann::json index = read_index(out);
  EXPECT_EQ(index["version"], 3);
  // The tar indexer's reading of the shards (it does not read the members of index.json).
  const Dataset packed = Dataset::open(out);
  ASSERT_EQ(index["shards"].size(), packed.files().size());
  std::size_t sample = 0;
  for (const nlohmann::json& shard : index["shards"]) {
    const fs::path file = fs::path(out) / shard["name"].get<std::string>();
    ASSERT_EQ(shard["members"].size(), shard["samples"].get<std::size_t>()) << file;
    std::error_code error;
    const io::File tar = io::File::open(file, error);
    ASSERT_FALSE(error) << file;
    for (const nlohmann::json& member : shard["members"]) {
      SCOPED_TRACE(file.string() + ":" + member.dump());
      const SampleRef& ref = packed.sample(sample);
      EXPECT_EQ(packed.files()[ref.file], file);
      EXPECT_EQ(member["offset"].get<std::uint64_t>(), ref.offset);
      EXPECT_EQ(member["size"].get<std::uint64_t>(), ref.size);
      EXPECT_EQ(member["label"].get<std::int32_t>(), ref.label);
      EXPECT_EQ(member["name"], packed.member(sample));
      // The member's ustar header is the block before its data: its name field names it.
      std::vector<char> header(io::kTarBlockSize);
      io::pread_exact(tar.fd(), member["offset"].get<std::uint64_t>() - io::kTarBlockSize,
                      header.data(), header.size(), error);
      ASSERT_FALSE(error);
      EXPECT_EQ(std::string(header.data()), member["name"].get<std::string>());
      ++sample;
    }
  }
  EXPECT_EQ(sample, packed.size());
}

TEST(PackCli, ShardAlteredAfterThePackIsRefused) {
  testing::TempDir dir;
  const std::string source = (dir / "src").string(), out = (dir / "packed").string();
  ASSERT_EQ(run_cli("make-dataset " + source + " --count 5 --classes 2").status, 0);
  ASSERT_EQ(run_cli("pack " + source + " " + out).status, 0);
  ASSERT_EQ(Dataset::open(out).size(), 5u);
  {  // the same shard name, one valid sample instead of five
    io::TarWriter tar(dir / "packed" / "shard-000000.tar");
    const std::vector<unsigned char> jpeg = testing::small_jpeg(1);
    tar.add("00000000.jpg", jpeg);
    tar.add("00000000.cls", std::vector<unsigned char>{'0', '\n'});
    tar.finish();
  }
  try {
    Dataset::open(out);
    FAIL() << "an altered shard was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shard-000000.tar"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("index.json"), std::string::npos) << e.what();
  }
}

TEST(PackCli, RefusesAFolderWithOtherFiles) {
  testing::TempDir dir;
  const std::string source = (dir / "src").string();
  ASSERT_EQ(run_cli("make-dataset " + source + " --count 4 --classes 2").status, 0);
  fs::create_directories(dir / "out");
  testing::write_file(dir / "out" / "notes.txt", {'x'});
  const testing::CliResult result = run_cli("pack " + source + " " + (dir / "out").string());
  EXPECT_NE(result.status, 0);
  EXPECT_NE(result.output.find("notes.txt"), std::string::npos) << result.output;
}

TEST(PackCli, BadSourceFileStopsOrIsSkipped) {
  testing::TempDir dir;
  const std::vector<fs::path> images = testing::make_image_folder(dir / "src", 6, 2);
  std::vector<unsigned char> cut = testing::read_file(images[3]);
  cut.resize(cut.size() / 3);
  testing::write_file(images[3], cut);
  const std::string source = (dir / "src").string();
  const testing::CliResult stopped = run_cli("pack " + source + " " + (dir / "a").string());
  EXPECT_NE(stopped.status, 0);
  EXPECT_NE(stopped.output.find(images[3].filename().string()), std::string::npos)
      << stopped.output;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir / "a")) {
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
    EXPECT_NE(entry.path().filename(), "index.json");
  }
  const std::string out = (dir / "b").string();
  const testing::CliResult skipped = run_cli("pack " + source + " " + out + " --on-bad skip");
  ASSERT_EQ(skipped.status, 0) << skipped.output;
  const nlohmann::json index = read_index(out);
  EXPECT_EQ(index["samples"], 5);
  ASSERT_EQ(index["skipped"].size(), 1u);
  EXPECT_EQ(index["skipped"][0]["index"], 3);
  EXPECT_EQ(Dataset::open(out).size(), 5u);
}

TEST(PackCli, MaxSideCapsTheLongerSide) {
  testing::TempDir dir;
  const std::string source = (dir / "src").string(), out = (dir / "small").string();
  ASSERT_EQ(run_cli("make-dataset " + source + " --count 6 --classes 2").status, 0);
  const testing::CliResult result =
      run_cli("pack " + source + " " + out + " --max-side 160 --quality 85");
  ASSERT_EQ(result.status, 0) << result.output;
  const Dataset packed = Dataset::open(out);
  ASSERT_EQ(packed.size(), 6u);
  const nlohmann::json index = read_index(out);
  EXPECT_EQ(index["counts"]["resized"], 6);
  decode::Decoder decoder;
  std::vector<std::uint8_t> rgb;
  for (std::size_t i = 0; i < packed.size(); ++i) {
    ASSERT_TRUE(decoder.decode_full(read_sample(packed, i), rgb).ok());
    EXPECT_EQ(std::max(decoder.width(), decoder.height()), 160);
    EXPECT_GT(index["resized"][i]["source_width"].get<int>(), 160 - 1);
  }
}

}  // namespace
}  // namespace feedrate
