// Single samples read outside the pipeline (loader/dataset/dataset_reader.h): an image folder's
// files and tar members give their exact bytes; a file removed after indexing is an error, not
// empty bytes.
#include "loader/dataset/dataset_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "io/tar_writer.h"
#include "tests/support/test_data.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

TEST(DatasetReader, ReadsAnImageFolderSampleAsItsFile) {
  testing::TempDir dir;
  const std::vector<fs::path> files = testing::make_image_folder(dir.path(), 4, 2);
  const Dataset dataset = Dataset::open(dir.path());
  const DatasetReader reader(dataset);
  std::vector<std::uint8_t> bytes;
  std::error_code error;
  for (std::size_t i = 0; i < dataset.size(); ++i) {
    reader.read(i, bytes, error);
    ASSERT_FALSE(error) << error.message();
    EXPECT_EQ(bytes, testing::read_file(files[i])) << i;
  }
  fs::remove(files[2]);
  reader.read(2, bytes, error);
  EXPECT_TRUE(error);
}

TEST(DatasetReader, ReadsATarMemberInPlace) {
  testing::TempDir dir;
  const std::vector<unsigned char> first = testing::small_jpeg(1), second = testing::small_jpeg(2);
  {
    io::TarWriter tar(dir / "a.tar");
    tar.add("k0.jpg", first);
    tar.add("k0.cls", std::vector<unsigned char>{'0', '\n'});
    tar.add("k1.jpg", second);
    tar.add("k1.cls", std::vector<unsigned char>{'1', '\n'});
  }
  const Dataset dataset = Dataset::open(dir / "a.tar");
  const DatasetReader reader(dataset);
  std::vector<std::uint8_t> bytes;
  std::error_code error;
  reader.read(1, bytes, error);
  ASSERT_FALSE(error) << error.message();
  EXPECT_EQ(bytes, std::vector<std::uint8_t>(second.begin(), second.end()));
  reader.read(0, bytes, error);
  EXPECT_EQ(bytes, std::vector<std::uint8_t>(first.begin(), first.end()));
}

}  // namespace
}  // namespace feedrate
