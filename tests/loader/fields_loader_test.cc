// Samples with fields through the Loader's C++ API: each sample's image and fields are read as
// one range (one read per sample, never one per member), and Batch::field gives each member's
// bytes (or the key) as a view of the batch.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "io/tar_writer.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

constexpr int kKeys = 12;

std::span<const unsigned char> bytes_of(const std::string& text) {
  return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}

std::string caption(int k) {
  return "caption " + std::to_string(k) + " \xc3\xa9";
}

class FieldsLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io::TarWriter tar(dir_ / "00000.tar");
    for (int k = 0; k < kKeys; ++k) {
      const std::string key = "s/" + std::to_string(100 + k);
      tar.add(key + ".jpg", testing::small_jpeg(static_cast<std::uint64_t>(k)));
      tar.add(key + ".txt", bytes_of(caption(k)));
      tar.add(key + ".json", bytes_of("{\"unread\": true}"));
      tar.add(key + ".cls2", bytes_of(std::to_string(k * 10) + "\n"));
    }
    tar.finish();
  }

  LoaderOptions options() const {
    LoaderOptions o;
    o.source = (dir_ / "00000.tar").string();
    o.batch_size = 5;
    o.transform.size = 24;
    o.rank = 0;
    o.world_size = 1;
    o.fields = {"__key__", "txt", "cls2"};
    return o;
  }

  testing::TempDir dir_;
};

TEST_F(FieldsLoaderTest, EachSampleIsOneReadAndItsFieldsAreViewsOfTheBatch) {
  for (const std::uint64_t chunk : {std::uint64_t{0}, std::uint64_t{1} << 20}) {
    LoaderOptions o = options();
    o.tar_chunk_bytes = chunk;
    Loader loader(o);
    std::map<std::string, std::string> seen;
    while (std::optional<Batch> batch = loader.next()) {
      ASSERT_EQ(batch->fields().size(), 3u);
      EXPECT_EQ(batch->fields()[1].kind, FieldKind::kText);
      for (std::size_t i = 0; i < batch->size(); ++i) {
        const std::string key(batch->field(i, 0));
        const int k = std::stoi(key.substr(2)) - 100;
        EXPECT_EQ(batch->field(i, 1), caption(k));
        EXPECT_EQ(batch->field_integer(i, 2), k * 10);
        seen[key] = std::string(batch->field(i, 1));
      }
      EXPECT_THROW(batch->field(0, 3), Error);
      EXPECT_THROW(batch->field(batch->size(), 0), Error);
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(kKeys));
    if (chunk == 0) {
      EXPECT_EQ(loader.stats().read_operations, static_cast<std::uint64_t>(kKeys));
    }
  }
}

TEST_F(FieldsLoaderTest, TheClassIsTheLabelsNotAField) {
  LoaderOptions o = options();
  o.fields = {"cls2", "cls"};
  EXPECT_THROW(Loader{o}, Error);  // no key has a .cls
  o.fields = {"txt"};
  Loader loader(o);
  const std::optional<Batch> batch = loader.next();
  ASSERT_TRUE(batch);
  EXPECT_TRUE(loader.dataset().classes().empty());
  EXPECT_THROW(batch->field_integer(0, 0), Error);  // text, not an integer
}

}  // namespace
}  // namespace feedrate
