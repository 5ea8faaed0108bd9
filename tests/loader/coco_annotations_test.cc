// COCO instances JSON into an AnnotationTable: boxes, labels under each mode, crowd flags,
// polygons and both RLE forms, image order, and the errors that name the file and the problem.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "feedrate/error.h"
#include "loader/dataset/annotations/coco.h"
#include "tests/support/test_data.h"

namespace feedrate::annotations {
namespace {

using feedrate::testing::TempDir;

std::filesystem::path write(const TempDir& dir, const std::string& text) {
  const auto path = dir / "instances.json";
  std::ofstream(path) << text;
  return path;
}

// Two images listed out of id order, one without annotations; categories after annotations, as
// COCO's own files order them.
const char* kInstances = R"({
  "info": {"year": 2017}, "licenses": [],
  "images": [
    {"id": 9, "file_name": "b.jpg", "width": 640, "height": 480},
    {"id": 3, "file_name": "a.jpg", "width": 320, "height": 200, "license": 1},
    {"id": 5, "file_name": "empty.jpg", "width": 10, "height": 10}
  ],
  "annotations": [
    {"id": 1, "image_id": 9, "category_id": 18, "bbox": [10.5, 20, 30, 40], "iscrowd": 0,
     "area": 1200, "segmentation": [[10.5, 20, 40.5, 20, 40.5, 60], [0, 0, 1, 0, 1, 1, 0, 1]]},
    {"id": 2, "image_id": 3, "category_id": 1, "bbox": [0, 0, 5, 5], "iscrowd": 1,
     "segmentation": {"counts": [2, 3, 4], "size": [200, 320]}},
    {"id": 3, "image_id": 9, "category_id": 1, "bbox": [1, 2, 0, 0], "iscrowd": 0,
     "segmentation": {"counts": "123O", "size": [480, 640]}}
  ],
  "categories": [{"id": 18, "name": "dog"}, {"id": 1, "name": "person"}]
})";

TEST(CocoAnnotations, ReadsImagesBoxesLabelsAndSegments) {
  TempDir dir;
  const AnnotationTable t = read_coco(write(dir, kInstances));
  ASSERT_EQ(t.images.size(), 3u);
  // Ascending image id, as torchvision's CocoDetection lists them.
  EXPECT_EQ(t.images[0].image_id, 3);
  EXPECT_EQ(t.images[0].file_name, "a.jpg");
  EXPECT_EQ(t.images[0].width, 320);
  EXPECT_EQ(t.images[0].height, 200);
  EXPECT_EQ(t.images[1].image_id, 5);
  EXPECT_EQ(t.images[1].count, 0u);  // kept, without boxes
  EXPECT_EQ(t.images[2].image_id, 9);
  ASSERT_EQ(t.images[2].count, 2u);
  EXPECT_FALSE(t.boxes_normalized);

  // Image 3: one crowd box [0, 0, 5, 5] of category 1.
  EXPECT_EQ(
      std::vector<float>(t.image_boxes(t.images[0]).begin(), t.image_boxes(t.images[0]).end()),
      (std::vector<float>{0, 0, 5, 5}));
  EXPECT_EQ(t.labels[t.images[0].first], 1);
  EXPECT_EQ(t.flags[t.images[0].first], kCrowd);
  // Image 9: its two annotations in file order; [x, y, w, h] -> [x, y, x + w, y + h].
  const std::uint32_t first = t.images[2].first;
  EXPECT_EQ(
      std::vector<float>(t.image_boxes(t.images[2]).begin(), t.image_boxes(t.images[2]).end()),
      (std::vector<float>{10.5f, 20, 40.5f, 60, 1, 2, 1, 2}));
  EXPECT_EQ(t.labels[first], 18);
  EXPECT_EQ(t.labels[first + 1], 1);
  EXPECT_EQ(t.flags[first], 0);

  // Segments follow their annotations through the grouping.
  const Segment& polygons = t.segments[first];
  ASSERT_EQ(polygons.kind, SegmentKind::kPolygons);
  ASSERT_EQ(polygons.count, 2u);
  const PolygonRef& triangle = t.polygons[polygons.first];
  EXPECT_EQ(triangle.count, 6u);
  EXPECT_EQ(t.points[triangle.first + 2], 40.5f);
  EXPECT_EQ(t.polygons[polygons.first + 1].count, 8u);

  const Segment& compressed = t.segments[first + 1];
  ASSERT_EQ(compressed.kind, SegmentKind::kRle);
  EXPECT_EQ(compressed.rle_height, 480);
  EXPECT_EQ(compressed.rle_width, 640);
  EXPECT_EQ(std::vector<std::uint32_t>(t.rle_counts.begin() + compressed.first,
                                       t.rle_counts.begin() + compressed.first + compressed.count),
            (std::vector<std::uint32_t>{1, 2, 3, 1}));
  const Segment& uncompressed = t.segments[t.images[0].first];
  ASSERT_EQ(uncompressed.kind, SegmentKind::kRle);
  EXPECT_EQ(uncompressed.count, 3u);
  EXPECT_EQ(t.rle_counts[uncompressed.first + 2], 4u);

  ASSERT_EQ(t.categories.size(), 2u);
  EXPECT_EQ(t.categories[0].name, "person");
  EXPECT_EQ(t.categories[1].label, 18);
}

TEST(CocoAnnotations, LabelModes) {
  TempDir dir;
  const auto path = write(dir, kInstances);
  // Categories sorted by id: 1 (person), 18 (dog).
  const AnnotationTable contiguous = read_coco(path, {LabelMode::kContiguous, true});
  EXPECT_EQ(contiguous.labels, (std::vector<std::int64_t>{1, 2, 1}));
  EXPECT_EQ(contiguous.categories[1].label, 2);
  EXPECT_EQ(contiguous.categories[1].source_id, 18);
  const AnnotationTable zero = read_coco(path, {LabelMode::kZeroBased, false});
  EXPECT_EQ(zero.labels, (std::vector<std::int64_t>{0, 1, 0}));
  // Without segmentation: no segments, no points, no counts.
  EXPECT_TRUE(zero.segments.empty());
  EXPECT_TRUE(zero.points.empty());
  EXPECT_TRUE(zero.rle_counts.empty());
}

// Each error names the file and what is wrong.
void expect_error(const std::string& text, const std::string& part) {
  TempDir dir;
  const auto path = write(dir, text);
  try {
    read_coco(path);
    ADD_FAILURE() << "no error for: " << text;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find(part), std::string::npos) << message;
  }
}

TEST(CocoAnnotations, ErrorsNameTheFileAndTheProblem) {
  const std::string images = R"("images": [{"id": 1, "file_name": "a.jpg"}])";
  const std::string categories = R"("categories": [{"id": 7, "name": "cat"}])";
  expect_error("{" + images + R"(, "annotations": [{"id": 4, "image_id": 1, "category_id": 7,
               "bbox": [0, 0, -1, 3]}], )" +
                   categories + "}",
               "annotations[0] (id 4): bbox has a negative width or height");
  expect_error("{" + images + R"(, "annotations": [{"id": 4, "image_id": 2, "category_id": 7,
               "bbox": [0, 0, 1, 3]}], )" +
                   categories + "}",
               "annotation id 4 refers to image_id 2, which is not in images");
  expect_error("{" + images + R"(, "annotations": [{"id": 4, "image_id": 1, "category_id": 8,
               "bbox": [0, 0, 1, 3]}], )" +
                   categories + "}",
               "annotation id 4 has category_id 8, not in categories");
  expect_error("{" + images + R"(, "annotations": [{"id": 4, "image_id": 1, "category_id": 7,
               "bbox": [0, 0, 1]}], )" +
                   categories + "}",
               "bbox has 3 values");
  expect_error("{" + images + R"(, "annotations": [{"id": 4, "image_id": 1, "category_id": 7,
               "bbox": [0, 0, 1, 1], "segmentation": {"counts": [5, 100], "size": [2, 2]}}], )" +
                   categories + "}",
               "RLE runs cover 105 pixels of a 2x2 image");
  expect_error(R"({"images": [{"id": 1}, {"id": 1}], "annotations": [], )" + categories + "}",
               "image id 1 appears twice");
  expect_error(R"({"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": [{"image_id": )",
               "malformed JSON");
  expect_error(R"({"images": [{"id": "one"}], "annotations": []})", "malformed JSON at byte");
}

TEST(CocoAnnotations, MissingFileIsAnError) {
  TempDir dir;
  EXPECT_THROW(read_coco(dir / "absent.json"), Error);
}

}  // namespace
}  // namespace feedrate::annotations
