// Dataset index: ImageFolder ordering and labels, file lists, tar shards, and the errors each
// format gives for bad input.
#include "feedrate/dataset.h"

#include <gtest/gtest.h>

#include "feedrate/error.h"
#include "io/file.h"
#include "io/tar_index.h"
#include "io/tar_writer.h"
#include "loader/dataset/dataset_builders.h"
#include "loader/dataset/dataset_builders.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

using testing::small_jpeg;
using testing::TempDir;
using testing::write_file;

using testing::error_of;

TEST(ImageFolder, ClassesSortByNameAndFilesWalkSorted) {
  TempDir dir;
  const auto jpeg = small_jpeg(1);
  for (const char* path : {"zebra/b.jpg", "zebra/a.JPG", "apple/x.jpeg", "apple/sub/y.jpg",
                           "apple/notes.txt", "Mango/m.jpg"}) {
    write_file(dir / path, jpeg);
  }
  const Dataset dataset = Dataset::open(dir.path());
  EXPECT_EQ(dataset.format(), DatasetFormat::kImageFolder);
  // Byte order, as Python's sorted(): uppercase first.
  EXPECT_EQ(dataset.classes(), (std::vector<std::string>{"Mango", "apple", "zebra"}));
  ASSERT_EQ(dataset.size(), 5u);
  const std::vector<std::pair<std::string, int>> expected = {{"Mango/m.jpg", 0},
                                                             {"apple/x.jpeg", 1},
                                                             {"apple/sub/y.jpg", 1},
                                                             {"zebra/a.JPG", 2},
                                                             {"zebra/b.jpg", 2}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(dataset.describe(i), (dir / expected[i].first).string());
    EXPECT_EQ(dataset.sample(i).label, expected[i].second);
    EXPECT_EQ(dataset.sample(i).size, jpeg.size());
  }
  EXPECT_EQ(dataset.total_bytes(), 5 * jpeg.size());
}

TEST(ImageFolder, AcceptsTorchvisionExtensionsAndCountsTheRest) {
  TempDir dir;
  const auto jpeg = small_jpeg(1);
  // torchvision tests name.lower().endswith(IMG_EXTENSIONS): the content does not matter here.
  for (const char* path :
       {"c/a.png", "c/b.PPM", "c/c.bmp", "c/d.pgm", "c/e.tif", "c/f.TIFF", "c/g.webp", "c/h.JPEG",
        "c/.png", "c/i.tar.Png", "c/j.gif", "c/k.txt", "c/png", "c/l.png.txt", "c/m.jpg2"}) {
    write_file(dir / path, jpeg);
  }
  const Dataset dataset = Dataset::open(dir.path());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < dataset.size(); ++i) {
    names.push_back(dataset.files()[dataset.sample(i).file].filename().string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{".png", "a.png", "b.PPM", "c.bmp", "d.pgm", "e.tif",
                                             "f.TIFF", "g.webp", "h.JPEG", "i.tar.Png"}));
  EXPECT_EQ(dataset.ignored_files(), 5u);
  EXPECT_EQ(dataset.ignored_examples(),
            (std::vector<std::string>{(dir / "c/j.gif").string(), (dir / "c/k.txt").string(),
                                      (dir / "c/l.png.txt").string()}));
}

TEST(ImageFolder, SubfoldersInSortedOsWalkOrder) {
  TempDir dir;
  const auto jpeg = small_jpeg(1);
  // sorted(os.walk()) orders directories by path string: "c/s" < "c/s-2" < "c/s/in" ('-' sorts
  // before '/'), not depth first.
  for (const char* path : {"c/s/in/z.png", "c/s-2/y.png", "c/s/x.png", "c/w.png"}) {
    write_file(dir / path, jpeg);
  }
  const Dataset dataset = Dataset::open(dir.path());
  ASSERT_EQ(dataset.size(), 4u);
  const char* expected[] = {"c/w.png", "c/s/x.png", "c/s-2/y.png", "c/s/in/z.png"};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(dataset.describe(i), (dir / expected[i]).string());
}

TEST(ImageFolder, ClassWithoutImagesIsAnErrorUnlessAllowed) {
  TempDir dir;
  write_file(dir / "a/x.png", small_jpeg(1));
  write_file(dir / "b/notes.txt", small_jpeg(1));
  std::filesystem::create_directories(dir / "c/empty");
  const std::string message = error_of([&] { Dataset::open(dir.path()); });
  EXPECT_NE(message.find("found no valid file for the classes b, c"), std::string::npos) << message;
  EXPECT_NE(message.find("allow_empty_classes"), std::string::npos) << message;
  const Dataset dataset = Dataset::open(dir.path(), false, true);
  EXPECT_EQ(dataset.classes(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(dataset.size(), 1u);
  EXPECT_EQ(dataset.ignored_files(), 1u);
}

TEST(FileList, NonImageLinesAreCountedAndLeftOut) {
  TempDir dir;
  write_file(dir / "a.webp", small_jpeg(1));
  write_file(dir / "b.txt", small_jpeg(2));
  const std::string list = "a.webp 0\nb.txt 1\nmissing.json 1\n";
  write_file(dir / "train.txt", {list.begin(), list.end()});
  const Dataset dataset = Dataset::open(dir / "train.txt");
  ASSERT_EQ(dataset.size(), 1u);
  EXPECT_EQ(dataset.ignored_files(), 2u);
  ASSERT_EQ(dataset.ignored_examples().size(), 2u);
  EXPECT_NE(dataset.ignored_examples()[0].find("train.txt:2: "), std::string::npos);
}

TEST(FileList, PathsRelativeToTheListWithLabels) {
  TempDir dir;
  write_file(dir / "imgs/a b.jpg", small_jpeg(1));
  write_file(dir / "imgs/c.jpg", small_jpeg(2));
  const std::string list = "# comment\n\nimgs/a b.jpg 3\r\n  imgs/c.jpg\t0\n";
  write_file(dir / "train.txt", {list.begin(), list.end()});
  const Dataset dataset = Dataset::open(dir / "train.txt");
  EXPECT_EQ(dataset.format(), DatasetFormat::kFileList);
  ASSERT_EQ(dataset.size(), 2u);
  EXPECT_EQ(dataset.describe(0), (dir / "imgs/a b.jpg").string());
  EXPECT_EQ(dataset.sample(0).label, 3);
  EXPECT_EQ(dataset.sample(1).label, 0);
  EXPECT_EQ(dataset.classes().size(), 4u);
}

TEST(FileList, BadLinesNameTheListAndLine) {
  TempDir dir;
  write_file(dir / "a.jpg", small_jpeg(1));
  auto list_error = [&](const std::string& text) {
    write_file(dir / "list.txt", {text.begin(), text.end()});
    return error_of([&] { Dataset::open(dir / "list.txt"); });
  };
  EXPECT_NE(list_error("a.jpg 1\na.jpg x\n").find("list.txt:2: label 'x'"), std::string::npos);
  EXPECT_NE(list_error("a.jpg\n").find("list.txt:1: expected"), std::string::npos);
  EXPECT_NE(list_error("missing.jpg 0\n").find("missing.jpg: cannot stat"), std::string::npos);
  EXPECT_NE(list_error("../a.jpg 0\n").find("outside the list's folder"), std::string::npos);
  EXPECT_NE(list_error("/etc/passwd 0\n").find("outside the list's folder"), std::string::npos);
  EXPECT_NE(list_error("# only a comment\n").find("no samples"), std::string::npos);
}

TEST(FileList, OutsidePathsAllowedOnRequest) {
  TempDir dir;
  write_file(dir / "a.jpg", small_jpeg(1));
  const std::string text = "../a.jpg 0\n";
  write_file(dir / "lists/list.txt", {text.begin(), text.end()});
  const Dataset dataset = Dataset::open(dir / "lists/list.txt", true);
  EXPECT_EQ(dataset.size(), 1u);
}

TEST(TarShards, GnuTarShardsPairImagesWithLabels) {
  TempDir dir;
  for (int i = 0; i < 6; ++i) {
    // Built with append: GCC 12 warns (-Wrestrict, a false positive) on `"s" + string`.
    const std::string key =
        std::string("s").append(std::to_string(i / 3)).append("/img_").append(std::to_string(i));
    write_file(dir / (key + ".jpg"), small_jpeg(static_cast<std::uint64_t>(i)));
    const std::string label = std::to_string(i % 2) + "\n";
    write_file(dir / (key + ".cls"), {label.begin(), label.end()});
  }
  std::filesystem::create_directories(dir / "shards");
  for (int s = 0; s < 2; ++s) {
    const std::string name = std::string("s").append(std::to_string(s));
    ASSERT_EQ(
        testing::run_command("tar --sort=name -cf " + (dir / "shards" / (name + ".tar")).string() +
                             " -C " + (dir / name).string() + " ."),
        0);
  }
  for (const std::string& source : {(dir / "shards").string(), (dir / "shards/*.tar").string(),
                                    (dir / "shards/s{0..1}.tar").string()}) {
    const Dataset dataset = Dataset::open(source);
    EXPECT_EQ(dataset.format(), DatasetFormat::kTarShards);
    ASSERT_EQ(dataset.size(), 6u);
    EXPECT_EQ(dataset.files().size(), 2u);
    for (std::size_t i = 0; i < 6; ++i) {
      EXPECT_EQ(dataset.sample(i).label, static_cast<int>(i % 2));
      EXPECT_NE(dataset.describe(i).find(".tar:./img_" + std::to_string(i) + ".jpg"),
                std::string::npos)
          << dataset.describe(i);
      // The byte range holds exactly the member's bytes.
      const auto shard = testing::read_file(dataset.files()[dataset.sample(i).file]);
      const auto original =
          testing::read_file(dir / std::string("s").append(std::to_string(i / 3)) /
                             std::string("img_").append(std::to_string(i)).append(".jpg"));
      ASSERT_EQ(dataset.sample(i).size, original.size());
      EXPECT_TRUE(
          std::equal(original.begin(), original.end(),
                     shard.begin() + static_cast<std::ptrdiff_t>(dataset.sample(i).offset)));
    }
  }
}

std::span<const unsigned char> bytes_of(const std::string& text) {
  return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}

TEST(TarShards, MissingLabelOrImageIsNamed) {
  TempDir dir;
  {
    io::TarWriter tar(dir / "a.tar");
    tar.add("k1.jpg", small_jpeg(1));
    tar.finish();
  }
  EXPECT_NE(error_of([&] {
              Dataset::open(dir / "a.tar");
            }).find("has 'cls' (the first, " + (dir / "a.tar").string() + ":k1 holds jpg)"),
            std::string::npos);
  {
    io::TarWriter tar(dir / "c.tar");
    tar.add("k1.jpg", small_jpeg(1));
    tar.add("k1.cls", bytes_of("1"));
    tar.add("k2.jpg", small_jpeg(2));
    tar.add("k3.cls", bytes_of("3"));
    tar.finish();
  }
  const Dataset skipping = Dataset::open(dir / "c.tar");
  EXPECT_EQ(skipping.size(), 1u);
  ASSERT_EQ(skipping.skipped(), 2u);
  EXPECT_EQ(skipping.skipped_examples()[0].where, (dir / "c.tar").string() + ":k2");
  EXPECT_EQ(skipping.skipped_examples()[0].reason,
            "no .cls member (field 'cls'); the key holds jpg");
  EXPECT_EQ(skipping.skipped_examples()[1].reason,
            "no image member (any image extension); the key holds cls");
  SampleSpec strict;
  strict.on_missing = BadInputPolicy::kError;
  EXPECT_NE(error_of([&] {
              Dataset::open(dir / "c.tar", false, false, strict);
            }).find("c.tar:k2: no .cls member"),
            std::string::npos);
  {
    io::TarWriter tar(dir / "b.tar");
    tar.add("k1.jpg", small_jpeg(1));
    tar.add("k1.cls", bytes_of("x1\n"));
    tar.finish();
  }
  EXPECT_NE(error_of([&] { Dataset::open(dir / "b.tar"); }).find("b.tar:k1.cls: label 'x1'"),
            std::string::npos);
}

TEST(TarShards, ASampleRangeCoversItsImageAndFieldsOnly) {
  TempDir dir;
  const auto jpeg = small_jpeg(1);
  {
    io::TarWriter tar(dir / "f.tar");
    tar.add("a/k1.jpg", jpeg);
    tar.add("a/k1.json", bytes_of("{}"));
    tar.add("a/k1.txt", bytes_of("a caption"));
    tar.add("a/k1.npy", bytes_of("unused"));
    tar.finish();
  }
  SampleSpec spec;
  spec.fields = parse_fields({"txt;caption", "__key__"});
  const Dataset dataset = Dataset::open(dir / "f.tar", false, false, spec);
  ASSERT_EQ(dataset.size(), 1u);
  ASSERT_EQ(dataset.member_fields(), 1u);
  EXPECT_EQ(dataset.key(0), "a/k1");
  EXPECT_TRUE(dataset.classes().empty());
  const std::vector<io::TarMember> members = [&] {
    std::error_code error;
    const io::File file = io::File::open(dir / "f.tar", error);
    return io::index_tar(file.fd(), dir / "f.tar");
  }();
  const SampleRef& ref = dataset.sample(0);
  EXPECT_EQ(ref.offset, members[0].offset);
  EXPECT_EQ(ref.offset + ref.size, members[2].offset + members[2].size);
  EXPECT_EQ(dataset.image_span(0).at, 0u);
  EXPECT_EQ(dataset.image_span(0).size, jpeg.size());
  EXPECT_EQ(ref.offset + dataset.field_span(0, 0).at, members[2].offset);
  EXPECT_EQ(dataset.field_span(0, 0).size, 9u);
  EXPECT_EQ(dataset.ignored_files(), 2u);  // json and npy: asked by no field
}

TEST(TarShards, EveryImageKindIsAMemberOtherKindsAreCounted) {
  TempDir dir;
  {
    io::TarWriter tar(dir / "m.tar");
    const std::string label = "1\n";
    const std::span<const unsigned char> cls(reinterpret_cast<const unsigned char*>(label.data()),
                                             label.size());
    for (const char* ext : {"jpg", "jpeg", "png", "webp", "ppm", "bmp", "pgm", "tif", "tiff"}) {
      tar.add(std::string("k_") + ext + "." + ext, small_jpeg(1));
      tar.add(std::string("k_") + ext + ".cls", cls);
    }
    tar.add("k_jpg.json", cls);
    tar.add("u.PNG", small_jpeg(1));
    tar.finish();
  }
  const Dataset dataset = Dataset::open(dir / "m.tar");
  EXPECT_EQ(dataset.size(), 9u);
  EXPECT_EQ(dataset.describe(2), (dir / "m.tar").string() + ":k_png.png");
  EXPECT_EQ(dataset.ignored_files(), 2u);
  EXPECT_EQ(dataset.ignored_examples(),
            (std::vector<std::string>{(dir / "m.tar").string() + ":k_jpg.json",
                                      (dir / "m.tar").string() + ":u.PNG"}));
}

TEST(TarShards, TruncatedShardIsAnErrorNamingIt) {
  TempDir dir;
  {
    io::TarWriter tar(dir / "t.tar");
    tar.add("k.jpg", small_jpeg(1));
    tar.finish();
  }
  std::filesystem::resize_file(dir / "t.tar", 1200);
  const std::string message = error_of([&] { Dataset::open(dir / "t.tar"); });
  EXPECT_NE(message.find("t.tar"), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

TEST(TarShards, ClsTextIsReadAsPythonsIntReadsIt) {
  EXPECT_EQ(std::get<std::int32_t>(parse_cls_label(" 5\n")), 5);
  EXPECT_EQ(std::get<std::int32_t>(parse_cls_label("\t7 \r\n")), 7);
  EXPECT_EQ(std::get<std::string>(parse_cls_label("-4")),
            "label '-4' is not an integer in [0, 1048575]");
  EXPECT_EQ(std::get<std::string>(parse_cls_label("5 5")),
            "label '5 5' is not an integer in [0, 1048575]");
}

TEST(Dataset, MissingAndEmptySources) {
  TempDir dir;
  EXPECT_NE(error_of([&] { Dataset::open(dir / "nope"); }).find("no such file or directory"),
            std::string::npos);
  EXPECT_NE(error_of([&] { Dataset::open(dir.path()); }).find("no class folders"),
            std::string::npos);
  std::filesystem::create_directories(dir / "empty_class");
  EXPECT_NE(error_of([&] { Dataset::open(dir.path(), false, true); }).find("no samples"),
            std::string::npos);
  EXPECT_NE(error_of([&] { Dataset::open((dir / "*.tar").string()); }).find("no file matches"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { Dataset::open((dir / "s{0..1}.tar").string()); }),
            (dir / "s0.tar").string() + ": no such file (a shard the pattern " +
                (dir / "s{0..1}.tar").string() + " names)");
  EXPECT_NE(error_of([&] { Dataset::open((dir / "s{0..1.tar").string()); }).find("s{0..1.tar"),
            std::string::npos);
}

}  // namespace
}  // namespace feedrate
