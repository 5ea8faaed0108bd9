// YOLO label folders, Pascal VOC XML and semantic-mask folders into AnnotationTables, with the
// errors that name the file and the problem.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "feedrate/error.h"
#include "loader/dataset/annotations/mask_folder.h"
#include "loader/dataset/annotations/voc.h"
#include "loader/dataset/annotations/yolo.h"
#include "tests/support/test_data.h"

namespace feedrate::annotations {
namespace {

namespace fs = std::filesystem;
using feedrate::testing::TempDir;

void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::vector<float> boxes_of(const AnnotationTable& t, const ImageRecord& image) {
  const auto boxes = t.image_boxes(image);
  return {boxes.begin(), boxes.end()};
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << i;
}

// An Ultralytics tree: images/train with a label file each but b.png, data.yaml's names a map.
struct YoloTree {
  TempDir dir;
  YoloTree() {
    put(dir / "data.yaml", "path: .\ntrain: images/train\nnames:\n  0: person\n  1: car\n");
    for (const char* name : {"a.jpg", "b.png", "c.jpg", "notes.txt"})
      put(dir / "images/train" / name, "x");
    put(dir / "labels/train/a.txt",
        "0 0.5 0.5 0.2 0.4\n1 0.25 0.25 0.5 0.5\n\n0 0.5 0.5 0.2 0.4\n");
    put(dir / "labels/train/c.txt", "1 0.1 0.2 0.3 0.2 0.3 0.6\n");
  }
  AnnotationTable read(LabelMode mode = LabelMode::kCategoryId) {
    return read_yolo(dir / "images/train", dir / "data.yaml", {mode});
  }
};

TEST(YoloAnnotations, ReadsNormalizedBoxesAndSegments) {
  YoloTree tree;
  const AnnotationTable t = tree.read();
  EXPECT_TRUE(t.boxes_normalized);
  ASSERT_EQ(t.images.size(), 3u);  // notes.txt is not an image
  EXPECT_EQ(t.images[0].file_name, "a.jpg");
  EXPECT_EQ(t.images[0].width, 0);  // unknown until decoded
  // cx cy w h -> XYXY; the repeated line is dropped.
  expect_near(boxes_of(t, t.images[0]), {0.4f, 0.3f, 0.6f, 0.7f, 0, 0, 0.5f, 0.5f});
  EXPECT_EQ(t.labels[0], 0);
  EXPECT_EQ(t.labels[1], 1);
  EXPECT_EQ(t.images[1].count, 0u);  // b.png has no label file
  // The segment line's box is its polygon's extent; its points stay, normalized.
  expect_near(boxes_of(t, t.images[2]), {0.1f, 0.2f, 0.3f, 0.6f});
  const Segment& segment = t.segments[t.images[2].first];
  ASSERT_EQ(segment.kind, SegmentKind::kPolygons);
  EXPECT_EQ(t.polygons[segment.first].count, 6u);
  EXPECT_EQ(t.segments[0].kind, SegmentKind::kNone);
  ASSERT_EQ(t.categories.size(), 2u);
  EXPECT_EQ(t.categories[1].name, "car");

  EXPECT_EQ(tree.read(LabelMode::kContiguous).labels, (std::vector<std::int64_t>{1, 2, 2}));

  // Ultralytics' denormalize: x * width, y * height.
  std::vector<float> pixels = boxes_of(t, t.images[0]);
  to_pixels(pixels, 100, 50);
  expect_near(pixels, {40, 15, 60, 35, 0, 0, 50, 25});
}

TEST(YoloAnnotations, NamesAsAListAndErrors) {
  YoloTree tree;
  put(tree.dir / "data.yaml", "names: [person, car]\n");
  EXPECT_EQ(tree.read().images.size(), 3u);
  const auto expect_error = [&](const std::string& line, const std::string& part) {
    put(tree.dir / "labels/train/c.txt", line);
    try {
      tree.read();
      ADD_FAILURE() << "no error for " << line;
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find((tree.dir / "labels/train/c.txt").string() + ":1: "),
                std::string::npos)
          << message;
      EXPECT_NE(message.find(part), std::string::npos) << message;
    }
  };
  expect_error("0 0.5 1.5 0.2 0.2\n", "normalized to [0, 1]");
  expect_error("5 0.5 0.5 0.2 0.2\n", "not an id of data.yaml's names");
  expect_error("0.5 0.5 0.5 0.2 0.2\n", "not an id of data.yaml's names");
  expect_error("0 0.5 0.5 0.2\n", "expected 'class cx cy w h'");
  expect_error("0 0.5 zero 0.2 0.2\n", "'zero' is not a number");
  put(tree.dir / "data.yaml", "train: images\n");
  EXPECT_THROW(tree.read(), Error);
}

std::string voc_xml(const std::string& filename, const std::string& objects) {
  return "<annotation><folder>VOC2007</folder><filename>" + filename +
         "</filename><size><width>353</width><height>500</height><depth>3</depth></size>" +
         objects + "</annotation>";
}

std::string voc_object(const std::string& name, int difficult, const std::string& box) {
  return "<object><name>" + name + "</name><pose>Left</pose><truncated>1</truncated><difficult>" +
         std::to_string(difficult) + "</difficult><bndbox>" + box + "</bndbox></object>";
}

TEST(VocAnnotations, ReadsBoxesOneBasedInclusiveToContinuous) {
  TempDir dir;
  put(dir / "Annotations/000001.xml",
      voc_xml("000001.jpg", voc_object("dog", 0,
                                       "<xmin>48</xmin><ymin>240</ymin><xmax>195</xmax>"
                                       "<ymax>371</ymax>") +
                                voc_object("person", 1,
                                           "<xmin>\n  8\n</xmin><ymin>12</ymin><xmax>352</xmax>"
                                           "<ymax>498.5</ymax>")));
  put(dir / "Annotations/000002.xml",
      voc_xml("000002.jpg", voc_object("cat", 0,
                                       "<xmin>1</xmin><ymin>1</ymin><xmax>353</xmax>"
                                       "<ymax>500</ymax>")));
  AnnotationTable t = read_voc(dir.path());
  ASSERT_EQ(t.images.size(), 2u);
  EXPECT_EQ(t.images[0].file_name, "JPEGImages/000001.jpg");
  EXPECT_EQ(t.images[0].width, 353);
  EXPECT_EQ(t.images[0].height, 500);
  // [xmin - 1, ymin - 1, xmax, ymax]: the whole 353 x 500 image is [0, 0, 353, 500].
  EXPECT_EQ(boxes_of(t, t.images[0]), (std::vector<float>{47, 239, 195, 371, 7, 11, 352, 498.5f}));
  EXPECT_EQ(boxes_of(t, t.images[1]), (std::vector<float>{0, 0, 353, 500}));
  // Sorted names: cat 0, dog 1, person 2.
  EXPECT_EQ(t.labels, (std::vector<std::int64_t>{1, 2, 0}));
  EXPECT_EQ(t.flags, (std::vector<std::uint8_t>{0, kDifficult, 0}));

  // A given class list, contiguous labels, and an image set.
  put(dir / "ImageSets/Main/train.txt", "000002  1\n\n");
  t = read_voc(dir.path(), {{"dog", "cat"}, LabelMode::kContiguous, "ImageSets/Main/train.txt"});
  ASSERT_EQ(t.images.size(), 1u);
  EXPECT_EQ(t.labels, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(t.categories[0].name, "dog");

  EXPECT_THROW(read_voc(dir.path(), {{"dog"}, LabelMode::kZeroBased, {}}), Error);
  EXPECT_THROW(read_voc(dir.path(), {{}, LabelMode::kCategoryId, {}}), Error);
}

TEST(VocAnnotations, ErrorsNameTheFile) {
  TempDir dir;
  const fs::path file = dir / "Annotations/bad.xml";
  const auto expect_error = [&](const std::string& xml, const std::string& part) {
    put(file, xml);
    try {
      read_voc(dir.path());
      ADD_FAILURE() << "no error for " << xml;
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(file.string()), std::string::npos) << message;
      EXPECT_NE(message.find(part), std::string::npos) << message;
    }
  };
  expect_error("<annotation><filename>a.jpg</filename><object>", "at byte");
  expect_error(voc_xml("a.jpg", voc_object("dog", 0,
                                           "<xmin>5</xmin><ymin>1</ymin><xmax>4</xmax>"
                                           "<ymax>3</ymax>")),
               "xmax < xmin");
  expect_error(voc_xml("a.jpg", voc_object("dog", 0,
                                           "<xmin>five</xmin><ymin>1</ymin><xmax>4</xmax>"
                                           "<ymax>3</ymax>")),
               "<xmin> 'five' is not a number");
  expect_error(voc_xml("a.jpg", voc_object("dog", 0,
                                           "<xmin>5px</xmin><ymin>1</ymin><xmax>4</xmax>"
                                           "<ymax>3</ymax>")),
               "<xmin> '5px' is not a number");
  expect_error(voc_xml("a.jpg", voc_object("dog", 0, "<ymin>1</ymin><xmax>4</xmax><ymax>3</ymax>")),
               "no <xmin>");
}

TEST(MaskFolder, MatchesByStemAndRefusesDuplicates) {
  TempDir dir;
  for (const char* name : {"a.png", "b.png", "readme.txt"}) put(dir / "masks" / name, "x");
  AnnotationTable t;
  for (const char* name : {"JPEGImages/a.jpg", "b.jpg", "z.jpg"})
    t.images.push_back({0, name, 0, 0, 0, 0, {}});
  const auto masks = index_masks(dir / "masks");
  EXPECT_EQ(masks.size(), 2u);
  const std::vector<fs::path> matched = match_masks(masks, t, false);
  EXPECT_EQ(matched, (std::vector<fs::path>{dir / "masks/a.png", dir / "masks/b.png", fs::path()}));
  try {
    match_masks(masks, t, true);
    ADD_FAILURE() << "z.jpg has no mask";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("z.jpg"), std::string::npos) << e.what();
  }
  put(dir / "masks/a.bmp", "x");
  try {
    index_masks(dir / "masks");
    ADD_FAILURE() << "two masks for a";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("two masks for 'a'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace feedrate::annotations
