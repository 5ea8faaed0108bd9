// Tests for the synthetic dataset generator: JPEG variants decode as requested, output is a pure
// function of the seed, and the dataset layouts are what loaders expect.

#include "bench/datagen/datagen.h"

#include <gtest/gtest.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/test_data.h"

namespace feedrate::datagen {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;
using feedrate::testing::read_file;
using feedrate::testing::read_tar;
using feedrate::testing::tar_list;

struct Header {
  int width = 0, height = 0, subsamp = -1, colorspace = -1;
};

Header read_header(const Bytes& jpeg) {
  const std::unique_ptr<void, int (*)(tjhandle)> tj(tjInitDecompress(), tjDestroy);
  Header h;
  if (tjDecompressHeader3(tj.get(), jpeg.data(), jpeg.size(), &h.width, &h.height, &h.subsamp,
                          &h.colorspace) != 0) {
    ADD_FAILURE() << "tjDecompressHeader3: " << tjGetErrorStr2(tj.get());
  }
  return h;
}

Bytes decode(const Bytes& jpeg, int pixel_format) {
  const std::unique_ptr<void, int (*)(tjhandle)> tj(tjInitDecompress(), tjDestroy);
  const Header h = read_header(jpeg);
  Bytes pixels(static_cast<std::size_t>(h.width) * h.height * tjPixelSize[pixel_format]);
  if (tjDecompress2(tj.get(), jpeg.data(), jpeg.size(), pixels.data(), h.width, 0, h.height,
                    pixel_format, 0) != 0) {
    ADD_FAILURE() << "tjDecompress2: " << tjGetErrorStr2(tj.get());
  }
  return pixels;
}

double mean_abs_diff(const Bytes& a, const Bytes& b) {
  EXPECT_EQ(a.size(), b.size());
  double sum = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) sum += std::abs(a[i] - b[i]);
  return a.empty() ? 0 : sum / static_cast<double>(a.size());
}

bool has_marker(const Bytes& jpeg, unsigned char marker) {
  for (std::size_t i = 0; i + 1 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == marker) return true;
  }
  return false;
}

Bytes to_bytes(const std::string& s) {
  return Bytes(s.begin(), s.end());
}

JpegSpec spec_of(int width, int height, ColorKind color = ColorKind::kRgb) {
  JpegSpec spec;
  spec.width = width;
  spec.height = height;
  spec.color = color;
  return spec;
}

class DatagenDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("datagen_test_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> dir_entries(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

TEST(MakeRgbPixels, SizeAndDeterminism) {
  const Bytes a = make_rgb_pixels(7, 123, 45);
  EXPECT_EQ(a.size(), 123u * 45 * 3);
  EXPECT_EQ(a, make_rgb_pixels(7, 123, 45));
  EXPECT_NE(a, make_rgb_pixels(8, 123, 45));
  EXPECT_THROW(make_rgb_pixels(1, 0, 10), std::invalid_argument);
  EXPECT_THROW(make_rgb_pixels(1, 10, -1), std::invalid_argument);
}

TEST(MakeRgbPixels, UsesTheValueRange) {
  // Photo-like content spans most of the range and is not flat.
  const Bytes pixels = make_rgb_pixels(3, 500, 375);
  const auto [lo, hi] = std::minmax_element(pixels.begin(), pixels.end());
  EXPECT_LT(*lo, 40);
  EXPECT_GT(*hi, 215);
}

TEST(MakeJpeg, Deterministic) {
  const JpegSpec spec = spec_of(320, 240);
  const Bytes a = make_jpeg(42, spec);
  EXPECT_EQ(a, make_jpeg(42, spec));
  EXPECT_NE(a, make_jpeg(43, spec));
}

TEST(MakeJpeg, RgbDecodesToTheRequestedSizeAndPixels) {
  const Bytes rgb = make_rgb_pixels(5, 301, 199);
  const Bytes jpeg = encode_jpeg(rgb, spec_of(301, 199));
  const Header h = read_header(jpeg);
  EXPECT_EQ(h.width, 301);
  EXPECT_EQ(h.height, 199);
  EXPECT_EQ(h.subsamp, TJSAMP_420);
  EXPECT_EQ(h.colorspace, TJCS_YCbCr);
  EXPECT_TRUE(has_marker(jpeg, 0xC0));   // baseline SOF0
  EXPECT_FALSE(has_marker(jpeg, 0xC2));  // not progressive
  EXPECT_LT(mean_abs_diff(decode(jpeg, TJPF_RGB), rgb), 8.0);
}

TEST(MakeJpeg, SubsamplingModes) {
  for (const auto& [mode, expected] :
       {std::pair{Subsampling::k444, TJSAMP_444}, std::pair{Subsampling::k422, TJSAMP_422},
        std::pair{Subsampling::k420, TJSAMP_420}}) {
    JpegSpec spec = spec_of(64, 48);
    spec.subsampling = mode;
    EXPECT_EQ(read_header(make_jpeg(1, spec)).subsamp, expected);
  }
}

TEST(MakeJpeg, Gray) {
  const Bytes rgb = make_rgb_pixels(9, 200, 150);
  const Bytes jpeg = encode_jpeg(rgb, spec_of(200, 150, ColorKind::kGray));
  const Header h = read_header(jpeg);
  EXPECT_EQ(h.width, 200);
  EXPECT_EQ(h.height, 150);
  EXPECT_EQ(h.colorspace, TJCS_GRAY);
  EXPECT_EQ(h.subsamp, TJSAMP_GRAY);
  // The stored values are the luma of the input.
  Bytes luma(200 * 150);
  for (std::size_t i = 0; i < luma.size(); ++i) {
    luma[i] = static_cast<unsigned char>(0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] +
                                         0.114 * rgb[3 * i + 2] + 0.5);
  }
  EXPECT_LT(mean_abs_diff(decode(jpeg, TJPF_GRAY), luma), 6.0);
}

TEST(MakeJpeg, CmykRoundTripsToTheSameColours) {
  const Bytes rgb = make_rgb_pixels(11, 160, 120);
  for (const auto mode : {Subsampling::k444, Subsampling::k420}) {
    JpegSpec spec = spec_of(160, 120, ColorKind::kCmyk);
    spec.subsampling = mode;
    const Bytes jpeg = encode_jpeg(rgb, spec);
    const Header h = read_header(jpeg);
    EXPECT_EQ(h.width, 160);
    EXPECT_EQ(h.height, 120);
    EXPECT_TRUE(h.colorspace == TJCS_YCCK || h.colorspace == TJCS_CMYK) << h.colorspace;
    // Adobe CMYK is stored inverted: R = C * K / 255.
    const Bytes cmyk = decode(jpeg, TJPF_CMYK);
    Bytes back(rgb.size());
    for (std::size_t i = 0; i < back.size() / 3; ++i) {
      for (int c = 0; c < 3; ++c) {
        back[3 * i + c] =
            static_cast<unsigned char>((cmyk[4 * i + c] * cmyk[4 * i + 3] + 127) / 255);
      }
    }
    EXPECT_LT(mean_abs_diff(back, rgb), 10.0);
  }
}

TEST(MakeJpeg, Progressive) {
  for (const auto color : {ColorKind::kRgb, ColorKind::kGray, ColorKind::kCmyk}) {
    JpegSpec spec = spec_of(256, 192, color);
    spec.progressive = true;
    const Bytes jpeg = make_jpeg(2, spec);
    EXPECT_TRUE(has_marker(jpeg, 0xC2));  // SOF2
    EXPECT_FALSE(has_marker(jpeg, 0xC0));
    EXPECT_EQ(read_header(jpeg).width, 256);
  }
}

TEST(MakeJpeg, RestartIntervals) {
  const Bytes rgb = make_rgb_pixels(4, 250, 170);
  for (const bool progressive : {false, true}) {
    JpegSpec spec = spec_of(250, 170);
    spec.progressive = progressive;
    spec.restart_interval_rows = 2;
    const Bytes jpeg = encode_jpeg(rgb, spec);
    EXPECT_TRUE(has_marker(jpeg, 0xDD));  // DRI
    EXPECT_TRUE(has_marker(jpeg, 0xD0));  // RST0
    EXPECT_EQ(has_marker(jpeg, 0xC2), progressive);
    const Header h = read_header(jpeg);
    EXPECT_EQ(h.subsamp, TJSAMP_420);
    EXPECT_EQ(h.colorspace, TJCS_YCbCr);
    EXPECT_LT(mean_abs_diff(decode(jpeg, TJPF_RGB), rgb), 8.0);
  }
  // Gray and CMYK go through the same path.
  for (const auto color : {ColorKind::kGray, ColorKind::kCmyk}) {
    JpegSpec spec = spec_of(250, 170, color);
    spec.restart_interval_rows = 1;
    const Bytes jpeg = encode_jpeg(rgb, spec);
    EXPECT_TRUE(has_marker(jpeg, 0xDD));
    EXPECT_NE(read_header(jpeg).colorspace, TJCS_YCbCr);
  }
  // Without a restart interval there are no restart markers.
  EXPECT_FALSE(has_marker(encode_jpeg(rgb, spec_of(250, 170)), 0xDD));
}

TEST(MakeJpeg, PhotoLikeSize) {
  // An ImageNet 500x375 q90 photo is typically 80-130 KB; the synthetic ones must be in range
  // for decode benchmarks to be representative.
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    const std::size_t size = make_jpeg(seed, JpegSpec{}).size();
    EXPECT_GE(size, 60u * 1024) << "seed " << seed;
    EXPECT_LE(size, 160u * 1024) << "seed " << seed;
  }
}

TEST(MakeJpeg, RejectsBadArguments) {
  const Bytes rgb = make_rgb_pixels(1, 10, 10);
  EXPECT_THROW(encode_jpeg(rgb, spec_of(10, 11)), std::invalid_argument);
  JpegSpec spec = spec_of(10, 10);
  spec.quality = 0;
  EXPECT_THROW(encode_jpeg(rgb, spec), std::invalid_argument);
  spec.quality = 101;
  EXPECT_THROW(encode_jpeg(rgb, spec), std::invalid_argument);
  spec.quality = 90;
  spec.restart_interval_rows = -1;
  EXPECT_THROW(encode_jpeg(rgb, spec), std::invalid_argument);
  EXPECT_THROW(make_jpeg(1, spec_of(0, 10)), std::invalid_argument);
}

TEST(MakeJpeg, EncoderErrorsBecomeRuntimeErrors) {
  // Wider than JPEG's 65535-pixel limit: both encoders refuse it, with their own message.
  const Bytes rgb(70000 * 3, 128);
  JpegSpec spec = spec_of(70000, 1);
  EXPECT_THROW(encode_jpeg(rgb, spec), std::runtime_error);
  spec.restart_interval_rows = 1;
  try {
    encode_jpeg(rgb, spec);
    ADD_FAILURE() << "libjpeg accepted a 70000-pixel wide image";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("libjpeg"), std::string::npos) << e.what();
  }
}

TEST(DatasetImageSize, ImageNetLikeMix) {
  std::map<std::pair<int, int>, int> counts;
  int other = 0;
  for (int i = 0; i < 2000; ++i) {
    const ImageSize size = dataset_image_size(17, i);
    ++counts[{size.width, size.height}];
    const bool common =
        (size.width == 500 && size.height == 375) || (size.width == 375 && size.height == 500);
    if (!common) {
      ++other;
      EXPECT_GE(size.width, 200);
      EXPECT_LE(size.width, 800);
      EXPECT_GE(size.height, 200);
      EXPECT_LE(size.height, 800);
    }
    EXPECT_EQ(size.width, dataset_image_size(17, i).width);
  }
  EXPECT_NEAR(counts[std::pair(500, 375)], 1400, 120);
  EXPECT_NEAR(counts[std::pair(375, 500)], 400, 80);
  EXPECT_NEAR(other, 200, 60);
}

TEST_F(DatagenDirTest, FolderLayout) {
  DatasetSpec spec;
  spec.out = dir_ / "ds";
  spec.count = 23;
  spec.classes = 4;
  spec.seed = 5;
  const DatasetSummary summary = make_dataset(spec);
  EXPECT_EQ(summary.images, 23u);
  EXPECT_EQ(summary.classes, 4);
  ASSERT_EQ(summary.files.size(), 23u);
  EXPECT_EQ(dir_entries(dir_), std::vector<std::string>{"ds"});  // no temporary left over
  EXPECT_EQ(dir_entries(spec.out),
            (std::vector<std::string>{"class_000", "class_001", "class_002", "class_003"}));
  std::uint64_t bytes = 0;
  for (int i = 0; i < 23; ++i) {
    char name[64];
    std::snprintf(name, sizeof(name), "class_%03d/img_%06d.jpg", i % 4, i);
    const fs::path file = spec.out / name;
    EXPECT_EQ(summary.files[i], file);
    const Bytes jpeg = read_file(file);
    bytes += jpeg.size();
    const Header h = read_header(jpeg);
    const ImageSize expected = dataset_image_size(spec.seed, i);
    EXPECT_EQ(h.width, expected.width) << name;
    EXPECT_EQ(h.height, expected.height) << name;
    EXPECT_EQ(h.subsamp, TJSAMP_420);
  }
  EXPECT_EQ(summary.bytes, bytes);
  EXPECT_EQ(summary.jpeg_bytes, bytes);
  EXPECT_EQ(dir_entries(spec.out / "class_001").size(), 6u);  // 1, 5, 9, 13, 17, 21
}

TEST_F(DatagenDirTest, TarLayoutMatchesFolderImages) {
  DatasetSpec spec;
  spec.count = 7;
  spec.classes = 3;
  spec.seed = 9;
  spec.out = dir_ / "folder";
  make_dataset(spec);
  spec.format = Format::kTar;
  spec.images_per_shard = 3;
  spec.out = dir_ / "tar";
  const DatasetSummary summary = make_dataset(spec);
  EXPECT_EQ(summary.images, 7u);
  ASSERT_EQ(summary.files.size(), 3u);
  EXPECT_EQ(dir_entries(spec.out),
            (std::vector<std::string>{"shard_000000.tar", "shard_000001.tar", "shard_000002.tar"}));
  std::uint64_t bytes = 0, jpeg_bytes = 0;
  int index = 0;
  for (int shard = 0; shard < 3; ++shard) {
    const fs::path path = summary.files[shard];
    EXPECT_EQ(path, spec.out / ("shard_00000" + std::to_string(shard) + ".tar"));
    bytes += fs::file_size(path);
    const auto members = read_tar(path);
    std::vector<std::string> names;
    for (const auto& m : members) names.push_back(m.first);
    EXPECT_EQ(tar_list(path), names);
    ASSERT_EQ(members.size(), shard < 2 ? 6u : 2u);
    for (std::size_t m = 0; m < members.size(); m += 2, ++index) {
      char key[32];
      std::snprintf(key, sizeof(key), "img_%06d", index);
      EXPECT_EQ(members[m].first, std::string(key) + ".jpg");
      EXPECT_EQ(members[m + 1].first, std::string(key) + ".cls");
      EXPECT_EQ(members[m + 1].second, to_bytes(std::to_string(index % 3) + "\n"));
      char folder_name[64];
      std::snprintf(folder_name, sizeof(folder_name), "class_%03d/%s.jpg", index % 3, key);
      EXPECT_EQ(members[m].second, read_file(dir_ / "folder" / folder_name)) << key;
      jpeg_bytes += members[m].second.size();
    }
  }
  EXPECT_EQ(index, 7);
  EXPECT_EQ(summary.bytes, bytes);
  EXPECT_EQ(summary.jpeg_bytes, jpeg_bytes);
}

TEST_F(DatagenDirTest, DeterministicAcrossRunsAndThreadCounts) {
  DatasetSpec spec;
  spec.count = 70;  // more than one encoding batch
  spec.classes = 5;
  spec.seed = 123;
  spec.format = Format::kTar;
  spec.images_per_shard = 40;
  spec.threads = 1;
  spec.out = dir_ / "a";
  const DatasetSummary a = make_dataset(spec);
  spec.threads = 3;
  spec.out = dir_ / "b";
  const DatasetSummary b = make_dataset(spec);
  spec.seed = 124;
  spec.out = dir_ / "c";
  const DatasetSummary c = make_dataset(spec);
  ASSERT_EQ(a.files.size(), 2u);
  ASSERT_EQ(b.files.size(), 2u);
  ASSERT_EQ(c.files.size(), 2u);
  for (std::size_t i = 0; i < a.files.size(); ++i) {
    EXPECT_EQ(read_file(a.files[i]), read_file(b.files[i]));
    EXPECT_NE(read_file(a.files[i]), read_file(c.files[i]));
  }
}

TEST_F(DatagenDirTest, CreatesParentsAndAcceptsATrailingSlash) {
  DatasetSpec spec;
  spec.count = 1;
  spec.out = dir_ / "a" / "b" / "";
  const DatasetSummary summary = make_dataset(spec);
  EXPECT_EQ(dir_entries(dir_ / "a"), std::vector<std::string>{"b"});
  ASSERT_EQ(summary.files.size(), 1u);
  EXPECT_TRUE(fs::is_regular_file(dir_ / "a" / "b" / "class_000" / "img_000000.jpg"));
}

TEST_F(DatagenDirTest, RefusesAnExistingOutput) {
  DatasetSpec spec;
  spec.count = 2;
  spec.out = dir_ / "exists";
  fs::create_directory(spec.out);
  try {
    make_dataset(spec);
    ADD_FAILURE() << "make_dataset overwrote " << spec.out;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(spec.out.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(spec.out));
  std::ofstream(dir_ / "file") << "x";
  spec.out = dir_ / "file";
  EXPECT_THROW(make_dataset(spec), std::runtime_error);
  EXPECT_EQ(dir_entries(dir_), (std::vector<std::string>{"exists", "file"}));
}

TEST_F(DatagenDirTest, RejectsBadSpecs) {
  DatasetSpec spec;
  spec.out = dir_ / "bad";
  spec.classes = 0;
  EXPECT_THROW(make_dataset(spec), std::invalid_argument);
  spec.classes = 2;
  spec.count = -1;
  EXPECT_THROW(make_dataset(spec), std::invalid_argument);
  spec.count = 1;
  spec.format = Format::kTar;
  spec.images_per_shard = 0;
  EXPECT_THROW(make_dataset(spec), std::invalid_argument);
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace feedrate::datagen
