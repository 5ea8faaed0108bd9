// Bad input through the whole loader: each kind gives an error naming the file (and tar
// member) and the problem; under `skip` every other sample is still delivered exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

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

struct BadFile {
  std::string name;      // under class_bad/
  std::string expected;  // in the error message
};

// A dataset of good images plus one bad file of each kind.
class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    good_ = testing::make_image_folder(dir_.path(), 20, 2);
    const auto jpeg = small_jpeg(77);
    write_file(dir_ / "class_bad/truncated.jpg",
               std::vector<unsigned char>(jpeg.begin(), jpeg.begin() + jpeg.size() / 2));
    const std::string text = "this is not an image";
    write_file(dir_ / "class_bad/text.jpg", {text.begin(), text.end()});
    write_file(dir_ / "class_bad/empty.jpg", {});
    auto huge = jpeg;
    patch_dimensions(huge, 30000, 30000);
    write_file(dir_ / "class_bad/huge.jpg", huge);
    auto corrupt = jpeg;
    for (std::size_t i = 0; i < 40; ++i) corrupt[2 + i * 7 % 300] ^= 0xA5;  // header damage
    write_file(dir_ / "class_bad/corrupt.jpg", corrupt);
    write_file(dir_ / "class_bad/deleted.jpg", jpeg);
  }

  // Rewrites the SOF0 marker's height and width.
  static void patch_dimensions(std::vector<unsigned char>& jpeg, int width, int height) {
    for (std::size_t i = 2; i + 8 < jpeg.size(); ++i) {
      if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) {
        jpeg[i + 5] = static_cast<unsigned char>(height >> 8);
        jpeg[i + 6] = static_cast<unsigned char>(height & 0xFF);
        jpeg[i + 7] = static_cast<unsigned char>(width >> 8);
        jpeg[i + 8] = static_cast<unsigned char>(width & 0xFF);
        return;
      }
    }
    FAIL() << "no SOF0 marker";
  }

  LoaderOptions options(BadInputPolicy policy) const {
    LoaderOptions o;
    o.source = dir_.path().string();
    o.batch_size = 4;
    o.num_workers = 2;
    o.transform.size = 24;
    o.on_bad = policy;
    o.rank = 0;
    o.world_size = 1;
    return o;
  }

  TempDir dir_;
  std::vector<fs::path> good_;
  const std::vector<BadFile> bad_ = {
      {"truncated.jpg", "truncated image"}, {"text.jpg", "not an image"},
      {"empty.jpg", "empty file"},          {"huge.jpg", "30000x30000 exceeds the limit"},
      {"corrupt.jpg", "corrupt image"},     {"deleted.jpg", "cannot open: No such file"}};
};

TEST_F(BadInputTest, SkipDeliversEveryGoodSampleAndListsEveryBadOne) {
  for (int workers : {0, 2}) {
    LoaderOptions o = options(BadInputPolicy::kSkip);
    o.num_workers = workers;
    o.pad_shards = false;  // the epoch's start does not pad what the skips leave short
    Loader loader(o);
    fs::remove(dir_ / "class_bad/deleted.jpg");  // after indexing: a file that vanished
    std::multiset<std::string> delivered;
    while (std::optional<Batch> batch = loader.next()) {
      for (std::uint32_t index : batch->indices())
        delivered.insert(loader.dataset().describe(index));
      EXPECT_EQ(batch->labels().size(), batch->size());
    }
    // A skip is listed with the batch whose read found it, or, when later batches took that
    // read's good samples, in the run's list only.
    const std::vector<SkippedSample> skipped = loader.stats().skipped_samples;
    EXPECT_EQ(delivered.size(), good_.size());
    for (const fs::path& path : good_) EXPECT_EQ(delivered.count(path.string()), 1u) << path;
    ASSERT_EQ(skipped.size(), bad_.size());
    for (const BadFile& bad : bad_) {
      const auto it = std::find_if(skipped.begin(), skipped.end(), [&](const SkippedSample& s) {
        return s.where == (dir_ / "class_bad" / bad.name).string();
      });
      ASSERT_NE(it, skipped.end()) << bad.name << " was not reported";
      // The file is named once, in `where`; the reason is the problem alone.
      EXPECT_EQ(it->reason.find(bad.name), std::string::npos) << it->reason;
      EXPECT_NE(it->reason.find(bad.expected), std::string::npos) << it->reason;
    }
    EXPECT_EQ(loader.stats().skipped, bad_.size());
    EXPECT_EQ(loader.stats().skipped_samples.size(), bad_.size());
    write_file(dir_ / "class_bad/deleted.jpg", small_jpeg(77));
  }
}

TEST_F(BadInputTest, ErrorPolicyStopsTheEpochWithANamedError) {
  for (const BadFile& bad : bad_) {
    TempDir one;
    testing::make_image_folder(one.path(), 6, 1);
    fs::create_directories(one / "class_bad");
    fs::copy_file(dir_ / "class_bad" / bad.name, one / "class_bad" / bad.name);
    LoaderOptions o = options(BadInputPolicy::kError);
    o.source = one.path().string();
    Loader loader(o);
    if (bad.name == "deleted.jpg") fs::remove(one / "class_bad" / bad.name);
    std::string message;
    try {
      while (loader.next()) {
      }
    } catch (const Error& e) {
      message = e.what();
    }
    EXPECT_NE(message.find((one / "class_bad" / bad.name).string()), std::string::npos)
        << bad.name << ": " << message;
    EXPECT_NE(message.find(bad.expected), std::string::npos) << message;
    // The epoch is over; a new one starts cleanly.
    EXPECT_FALSE(loader.next().has_value());
  }
}

TEST_F(BadInputTest, PixelLimitIsAnOption) {
  LoaderOptions o = options(BadInputPolicy::kSkip);
  o.source = (dir_ / "class_000").parent_path().string();
  o.max_pixels = 5000;  // the generated images are 80..112 x 64..80
  Loader loader(o);
  std::size_t delivered = 0;
  while (std::optional<Batch> batch = loader.next()) delivered += batch->size();
  EXPECT_LT(delivered, good_.size());
  EXPECT_NE(loader.stats().skipped_samples.front().reason.find("exceeds the limit of 5000"),
            std::string::npos);
}

// A JPEG with extraneous bytes before its EOI marker decodes with a libjpeg warning:
// on_warning = accept (the default) delivers it, reject makes it a bad sample named with the
// warning. Eval with resize == size reads every row, so the decoder reaches the marker.
TEST(WarningPolicy, IsAnOptionAndRejectedImagesAreBadSamples) {
  TempDir dir;
  testing::make_image_folder(dir.path(), 6, 1);
  auto jpeg = small_jpeg(78);
  jpeg.insert(jpeg.end() - 2, 64, 0x5A);
  write_file(dir / "class_000/warned.jpg", jpeg);
  LoaderOptions o;
  o.source = dir.path().string();
  o.batch_size = 4;
  o.transform.kind = TransformKind::kEval;
  o.transform.size = o.transform.resize = 24;
  o.on_bad = BadInputPolicy::kSkip;
  o.pad_shards = false;
  o.rank = 0;
  o.world_size = 1;
  for (WarningPolicy policy : {WarningPolicy::kAccept, WarningPolicy::kReject}) {
    o.on_warning = policy;
    Loader loader(o);
    std::size_t delivered = 0;
    while (std::optional<Batch> batch = loader.next()) delivered += batch->size();
    if (policy == WarningPolicy::kAccept) {
      EXPECT_EQ(delivered, 7u);
      EXPECT_EQ(loader.stats().skipped, 0u);
    } else {
      EXPECT_EQ(delivered, 6u);
      const RunStats stats = loader.stats();
      ASSERT_EQ(stats.skipped_samples.size(), 1u);
      const std::string& reason = stats.skipped_samples.front().reason;
      EXPECT_NE(stats.skipped_samples.front().where.find("warned.jpg"), std::string::npos);
      EXPECT_NE(reason.find("extraneous bytes before marker 0xd9"), std::string::npos) << reason;
    }
  }
  o.on_warning = static_cast<WarningPolicy>(7);
  try {
    Loader loader(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("on_warning"), std::string::npos) << e.what();
  }
}

TEST(BadTarMember, ErrorNamesShardAndMember) {
  TempDir dir;
  {
    io::TarWriter tar(dir / "shard.tar");
    const auto jpeg = small_jpeg(5);
    const std::string label = "0\n";
    const std::span<const unsigned char> cls(reinterpret_cast<const unsigned char*>(label.data()),
                                             label.size());
    tar.add("good.jpg", jpeg);
    tar.add("good.cls", cls);
    tar.add("bad.jpg", std::span<const unsigned char>(jpeg.data(), jpeg.size() / 3));
    tar.add("bad.cls", cls);
    tar.finish();
  }
  LoaderOptions o;
  o.source = (dir / "shard.tar").string();
  o.transform.size = 24;
  o.shuffle = ShuffleMode::kNone;
  o.rank = 0;
  o.world_size = 1;
  Loader loader(o);
  try {
    loader.next();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shard.tar:bad.jpg: truncated image"), std::string::npos)
        << e.what();
  }
  o.on_bad = BadInputPolicy::kSkip;
  o.pad_shards = false;
  Loader skipping(o);
  std::optional<Batch> batch = skipping.next();
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->size(), 1u);
  ASSERT_EQ(batch->skipped().size(), 1u);
  EXPECT_EQ(batch->skipped()[0].where, (dir / "shard.tar").string() + ":bad.jpg");
}

}  // namespace
}  // namespace feedrate
