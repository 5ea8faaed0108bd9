// Manifests: JSON Lines and CSV rows as samples (image paths relative to the manifest, columns
// as field values the index holds, cls from the cls or label column), the rows left out under
// on_missing / on_bad and named by manifest:line, and batches that deliver the values.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>

#include "feedrate/dataset.h"
#include "feedrate/error.h"
#include "feedrate/loader.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using testing::small_jpeg;
using testing::TempDir;
using testing::write_file;

using testing::error_of;

void write_text(const std::filesystem::path& path, const std::string& text) {
  write_file(path, {text.begin(), text.end()});
}

SampleSpec spec_of(std::vector<std::string> fields, std::string image = "") {
  LoaderOptions options;
  options.fields = std::move(fields);
  options.image = std::move(image);
  return SampleSpec::of(options);
}

class ManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir_ / "imgs/a.jpg", small_jpeg(1));
    write_file(dir_ / "imgs/b.jpg", small_jpeg(2));
    write_file(dir_ / "c.jpg", small_jpeg(3));
  }
  Dataset open(const std::string& name, const std::string& text, const SampleSpec& spec,
               bool allow_outside = false) {
    write_text(dir_ / name, text);
    return Dataset::open(dir_ / name, allow_outside, false, spec);
  }
  TempDir dir_;
};

TEST_F(ManifestTest, JsonLinesRowsAreSamplesWithTheirColumns) {
  const Dataset dataset = open("m.jsonl",
                               "{\"image\": \"imgs/a.jpg\", \"caption\": \"a cat\", "
                               "\"meta\": 1, \"json\": {\"w\": 96}, \"label\": 2}\n"
                               "\n"
                               "{\"image\": \"c.jpg\", \"caption\": \"caf\\u00e9\", "
                               "\"json\": [1, \"x\"], \"label\": 0}\n",
                               spec_of({"caption", "json", "cls", "__key__"}));
  EXPECT_EQ(dataset.format(), DatasetFormat::kManifest);
  EXPECT_STREQ(format_name(dataset.format()), "manifest");
  ASSERT_EQ(dataset.size(), 2u);
  EXPECT_TRUE(dataset.holds_field_values());
  EXPECT_EQ(dataset.member_fields(), 2u);
  EXPECT_EQ(dataset.field_value(0, 0), "a cat");
  EXPECT_EQ(dataset.field_value(0, 1), "{\"w\":96}");
  EXPECT_EQ(dataset.field_value(1, 0), "caf\xC3\xA9");
  EXPECT_EQ(dataset.field_value(1, 1), "[1,\"x\"]");
  EXPECT_EQ(dataset.sample(0).label, 2);
  EXPECT_EQ(dataset.sample(1).label, 0);
  EXPECT_EQ(dataset.classes(), (std::vector<std::string>{"0", "1", "2"}));
  // The sample's range is its image file, whole.
  EXPECT_EQ(dataset.files()[dataset.sample(0).file], dir_ / "imgs/a.jpg");
  EXPECT_EQ(dataset.sample(0).size, small_jpeg(1).size());
  EXPECT_EQ(dataset.image_span(0).size, small_jpeg(1).size());
  EXPECT_EQ(dataset.key(0), "imgs/a.jpg");
  EXPECT_EQ(dataset.describe(1), (dir_ / "m.jsonl").string() + ":3 (c.jpg)");
}

TEST_F(ManifestTest, CsvRowsWithQuotedCellsAndAnImageColumnOption) {
  const Dataset dataset = open("m.csv",
                               "url,file,txt\n"
                               "\"imgs/b.jpg\",ignored,\"two, with a comma\"\n"
                               "c.jpg,ignored,\"a \"\"quoted\"\"\nline\"\n",
                               spec_of({"txt"}, "url"));
  ASSERT_EQ(dataset.size(), 2u);
  EXPECT_EQ(dataset.key(0), "imgs/b.jpg");
  EXPECT_EQ(dataset.field_value(0, 0), "two, with a comma");
  EXPECT_EQ(dataset.field_value(1, 0), "a \"quoted\"\nline");
  EXPECT_TRUE(dataset.classes().empty());
}

TEST_F(ManifestTest, TheDefaultImageColumnIsTheFirstOfTheUsualNames) {
  const Dataset dataset =
      open("m.jsonl", "{\"url\": \"x\", \"filepath\": \"c.jpg\"}\n", spec_of({"__key__"}));
  EXPECT_EQ(dataset.key(0), "c.jpg");
  EXPECT_FALSE(dataset.holds_field_values());  // no field is a column value
  // A CSV's header names the column, even when the first row's cell is empty.
  const Dataset csv = open("m.csv", "path,txt\n,a\nc.jpg,b\n", spec_of({"txt"}));
  ASSERT_EQ(csv.size(), 1u);
  EXPECT_EQ(csv.key(0), "c.jpg");
  ASSERT_EQ(csv.skipped(), 1u);
  EXPECT_EQ(csv.skipped_examples()[0].reason, "no image (column 'path'); the row holds txt");
  EXPECT_EQ(error_of([&] {
              open("n.jsonl", "{\"picture\": \"c.jpg\", \"txt\": \"t\"}\n", spec_of({"txt"}));
            }),
            (dir_ / "n.jsonl").string() +
                ":1: no image column (image, path, file, filepath or url; name it with option "
                "image); the row holds picture, txt");
}

TEST_F(ManifestTest, MissingColumnsAndImagesFollowOnMissing) {
  const std::string text =
      "{\"image\": \"imgs/a.jpg\", \"txt\": \"a\"}\n"
      "{\"image\": \"imgs/b.jpg\", \"txt\": null}\n"
      "{\"image\": \"gone.jpg\", \"txt\": \"g\"}\n"
      "{\"txt\": \"no image\"}\n";
  const Dataset dataset = open("m.jsonl", text, spec_of({"txt"}));
  ASSERT_EQ(dataset.size(), 1u);
  ASSERT_EQ(dataset.skipped(), 3u);
  const std::string m = (dir_ / "m.jsonl").string();
  EXPECT_EQ(dataset.skipped_examples()[0].where, m + ":2");
  EXPECT_EQ(dataset.skipped_examples()[0].reason,
            "no column 'txt' (field 'txt'); the row holds image");
  EXPECT_EQ(dataset.skipped_examples()[1].where, m + ":3");
  EXPECT_NE(dataset.skipped_examples()[1].reason.find("gone.jpg: cannot stat"), std::string::npos);
  EXPECT_EQ(dataset.skipped_examples()[2].reason, "no image (column 'image'); the row holds txt");
  SampleSpec strict = spec_of({"txt"});
  strict.on_missing = BadInputPolicy::kError;
  EXPECT_EQ(error_of([&] { open("m.jsonl", text, strict); }),
            m + ":2: no column 'txt' (field 'txt'); the row holds image");
}

TEST_F(ManifestTest, BadRowsFollowOnBadAndNameTheLine) {
  const std::string jsonl =
      "{\"image\": \"c.jpg\", \"cls\": 1}\n"
      "{\"image\": \"c.jpg\", \"cls\": \n"
      "[\"c.jpg\"]\n"
      "{\"image\": \"c.jpg\", \"label\": \"x\"}\n";
  SampleSpec skip = spec_of({"cls"});
  skip.on_bad = BadInputPolicy::kSkip;
  const Dataset dataset = open("m.jsonl", jsonl, skip);
  ASSERT_EQ(dataset.size(), 1u);
  ASSERT_EQ(dataset.skipped(), 3u);
  EXPECT_EQ(dataset.skipped_examples()[0].reason, "not JSON");
  EXPECT_EQ(dataset.skipped_examples()[1].reason, "not a JSON object");
  EXPECT_EQ(dataset.skipped_examples()[2].reason,
            "label 'x' is not an integer in [0, 1048575]; the row holds image, label");
  const std::string m = (dir_ / "m.jsonl").string();
  EXPECT_EQ(error_of([&] { open("m.jsonl", jsonl, spec_of({"cls"})); }), m + ":2: not JSON");
  const std::string csv = "image,txt\nc.jpg,a\nc.jpg\nc.jpg,b,extra\n";
  const Dataset rows = open("m.csv", csv, [&] {
    SampleSpec s = spec_of({"txt"});
    s.on_bad = BadInputPolicy::kSkip;
    return s;
  }());
  EXPECT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows.skipped(), 2u);
  EXPECT_EQ(rows.skipped_examples()[1].where, (dir_ / "m.csv").string() + ":4");
  EXPECT_EQ(rows.skipped_examples()[1].reason, "3 cells where the header names 2 columns");
  EXPECT_EQ(error_of([&] { open("m.csv", "image,image\nc.jpg,c.jpg\n", spec_of({})); }),
            (dir_ / "m.csv").string() + ":1: the header names column 'image' twice");
}

TEST_F(ManifestTest, IntegersWrittenAsFloatsAreIntegers) {
  // pandas writes an integer column that holds a missing value as floats (3.0, NaN -> null).
  SampleSpec spec = spec_of({"cls", "index"});
  spec.on_bad = BadInputPolicy::kSkip;
  const Dataset dataset = open("m.jsonl",
                               "{\"image\": \"c.jpg\", \"label\": 3.0, \"index\": 7.00}\n"
                               "{\"image\": \"c.jpg\", \"label\": null, \"index\": 1}\n"
                               "{\"image\": \"c.jpg\", \"label\": 2.5, \"index\": 1}\n",
                               spec);
  ASSERT_EQ(dataset.size(), 1u);
  EXPECT_EQ(dataset.sample(0).label, 3);
  EXPECT_EQ(dataset.field_value(0, 0), "7");
  ASSERT_EQ(dataset.skipped(), 2u);
  EXPECT_NE(dataset.skipped_examples()[0].reason.find("no column 'cls' or 'label'"),
            std::string::npos)
      << dataset.skipped_examples()[0].reason;
  EXPECT_NE(dataset.skipped_examples()[1].reason.find("label '2.5' is not an integer"),
            std::string::npos)
      << dataset.skipped_examples()[1].reason;
  const Dataset csv = open("m.csv", "image,label\nc.jpg,4.0\n", spec_of({"cls"}));
  ASSERT_EQ(csv.size(), 1u);
  EXPECT_EQ(csv.sample(0).label, 4);
}

TEST_F(ManifestTest, PathsOutsideTheFolderNeedTheOption) {
  const std::string absolute = (dir_ / "c.jpg").string();
  const std::string text = "{\"image\": \"" + absolute + "\", \"txt\": \"t\"}\n";
  std::filesystem::create_directories(dir_ / "sub");
  EXPECT_NE(error_of([&] {
              open("m.jsonl", text, spec_of({"txt"}));
            }).find("is outside the manifest's folder (allow it with allow_paths_outside_root)"),
            std::string::npos);
  const Dataset dataset = open("m.jsonl", text, spec_of({"txt"}), true);
  EXPECT_EQ(dataset.key(0), absolute);
  const Dataset up = open("sub/m.jsonl", "{\"image\": \"../c.jpg\"}\n", spec_of({}), true);
  EXPECT_EQ(up.files()[0], dir_ / "sub/../c.jpg");
  // The images are all local or all at URLs (read remotely: tests/remote/test_fields_source.py).
  EXPECT_NE(error_of([&] {
              open("u.jsonl", text + "{\"image\": \"https://h/x.jpg\"}\n", spec_of({}), true);
            }).find("u.jsonl:2: image 'https://h/x.jpg' is a URL where the rows before name local"),
            std::string::npos);
  EXPECT_EQ(
      error_of([] { Dataset::open("https://host/train.jsonl"); }),
      "https://host/train.jsonl: a manifest at a URL is not read yet: copy it to a local file "
      "(its rows may name local images)");
}

TEST_F(ManifestTest, OptionsThatFitNoManifestAreErrors) {
  EXPECT_NE(error_of([&] {
              open("m.jsonl", "{\"image\": \"c.jpg\"}\n", spec_of({}, "jpg"));
            }).find("option image names image extensions"),
            std::string::npos);
  // A field no row has is an error naming what the first row holds.
  EXPECT_EQ(error_of([&] { open("m.jsonl", "{\"image\": \"c.jpg\"}\n", spec_of({"txt"})); }),
            "option fields: no sample of " + (dir_ / "m.jsonl").string() +
                " has 'txt' (the first, " + (dir_ / "m.jsonl").string() + ":1 holds image)");
  // A column name for the image is for manifests only.
  write_file(dir_ / "folder/k/x.jpg", small_jpeg(4));
  EXPECT_NE(error_of([&] {
              Dataset::open(dir_ / "folder", false, false, spec_of({}, "url"));
            }).find("a column name is for manifests (.jsonl, .csv) only"),
            std::string::npos);
}

TEST_F(ManifestTest, BatchesDeliverTheColumnsAndOutliveTheirLoader) {
  write_text(dir_ / "m.jsonl",
             "{\"image\": \"imgs/a.jpg\", \"txt\": \"first\", \"json\": {\"n\": 1}, \"cls2\": 7}\n"
             "{\"image\": \"imgs/b.jpg\", \"txt\": \"second\", \"json\": {\"n\": 2}, \"cls2\": 8}\n"
             "{\"image\": \"c.jpg\", \"txt\": \"third\", \"json\": {\"n\": 3}, \"cls2\": 9}\n");
  LoaderOptions options;
  options.source = (dir_ / "m.jsonl").string();
  options.batch_size = 3;
  options.transform.size = 16;
  options.transform.resize = 16;
  options.rank = 0;
  options.world_size = 1;
  options.fields = {"txt", "json", "cls2", "__key__"};
  std::optional<Batch> batch;
  {
    Loader loader(options);
    loader.start_epoch(0);
    batch = loader.next();
  }
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->size(), 3u);
  const std::map<std::string, std::string> caption = {
      {"imgs/a.jpg", "first"}, {"imgs/b.jpg", "second"}, {"c.jpg", "third"}};
  for (std::size_t i = 0; i < batch->size(); ++i) {
    const std::string key(batch->field(i, 3));
    EXPECT_EQ(batch->field(i, 0), caption.at(key));
    const std::int64_t n = batch->field_integer(i, 2) - 6;
    EXPECT_EQ(batch->field(i, 1), "{\"n\":" + std::to_string(n) + "}");
  }
}

}  // namespace
}  // namespace feedrate
