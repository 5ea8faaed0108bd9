// The detection and segmentation annotations of a dataset, read once at index time into flat
// arrays (COCO: coco.h, YOLO: yolo.h, Pascal VOC: voc.h), the Loader's detection datasets
// (loader/dataset/detection_source.cc): a sample's boxes are the range [first, first + count)
// of its image's annotations, moved with its pixels by decode/detection_transform.h; masks
// rasterize with decode/mask_raster.h.
//
// Boxes are float32 XYXY, [x1, y1, x2, y2], in pixels with continuous coordinates (pixel column
// i covers [i, i + 1)), or in fractions of the image's width and height when boxes_normalized
// (YOLO, whose labels are normalized and whose image sizes are known only once decoded:
// to_pixels converts). Thread-safety: a table is a value, read concurrently once built.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "feedrate/options.h"

namespace feedrate::annotations {

// How category ids become labels: the public option (feedrate/options.h).
using feedrate::LabelMode;

enum AnnotationFlag : std::uint8_t {
  kCrowd = 1,      // COCO iscrowd: 1
  kDifficult = 2,  // VOC <difficult>1</difficult>
};

struct ImageRecord {
  std::int64_t image_id = 0;
  std::string file_name;   // as the source names it (relative to its image folder)
  std::int32_t width = 0;  // 0 when the source does not say (YOLO)
  std::int32_t height = 0;
  std::uint32_t first = 0;  // its annotations: [first, first + count)
  std::uint32_t count = 0;
  // Read under a skip policy (the readers' skip_bad): what is wrong with the image's
  // annotations, naming the entry; empty when they are good. The Loader leaves such an image
  // out, counted.
  std::string problem;
};

// A class as the labels name it: the label it became and the source's name.
struct Category {
  std::int64_t label = 0;
  std::int64_t source_id = 0;  // COCO's category id, YOLO's names id, VOC's list index
  std::string name;
};

// The segmentation of one annotation: kPolygons: polygons [first, first + count) of
// AnnotationTable::polygons; kRle: counts [first, first + count) of rle_counts, over an image of
// rle_height x rle_width (COCO's "size"), column-major as decode/mask_raster.h decodes them.
enum class SegmentKind : std::uint8_t { kNone, kPolygons, kRle };
struct Segment {
  SegmentKind kind = SegmentKind::kNone;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  std::int32_t rle_height = 0;
  std::int32_t rle_width = 0;
};
// One polygon: points [first, first + count) of AnnotationTable::points (count x, y values).
struct PolygonRef {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

struct AnnotationTable {
  std::vector<ImageRecord> images;
  std::vector<Category> categories;  // ascending label
  bool boxes_normalized = false;

  // Per annotation, grouped by image in `images` order.
  std::vector<float> boxes;  // 4 per annotation
  std::vector<std::int64_t> labels;
  std::vector<std::uint8_t> flags;  // AnnotationFlag bits
  std::vector<Segment> segments;    // empty when the source has no segmentation

  std::vector<PolygonRef> polygons;
  // x, y pairs: pixels, or normalized with the boxes. Doubles, as pycocotools reads COCO's
  // JSON: rounded to float32, 2% of COCO's two-decimal coordinates fall on another point of
  // rleFrPoly's 1/5-pixel grid, and half of a sample of polygons rasterized a few pixels apart.
  std::vector<double> points;
  std::vector<std::uint32_t> rle_counts;

  std::size_t annotation_count() const { return labels.size(); }
  std::span<const float> image_boxes(const ImageRecord& image) const {
    return std::span<const float>(boxes).subspan(4 * std::size_t{image.first},
                                                 4 * std::size_t{image.count});
  }
};

// The label of the class at `index` (0-based) of the sorted classes under `mode`: index + 1
// (contiguous), index (zero_based) or `source_id` (category_id).
std::int64_t label_of(LabelMode mode, std::size_t index, std::int64_t source_id);

// Normalized XYXY to pixels for an image of width x height: x * width, y * height in float32
// (Ultralytics' Instances.denormalize).
void to_pixels(std::span<float> boxes, int width, int height);

// Every image file (is_image_name) under `folder`, recursively, sorted by path (as Ultralytics
// and a plain listing order them): file_name relative to `folder`, image_id the position, no
// annotations. Throws feedrate::Error naming a folder that cannot be listed.
std::vector<ImageRecord> list_images(const std::filesystem::path& folder);

// Reorders the per-annotation arrays (boxes, labels, flags, segments) so that each image's
// annotations are contiguous, in the order the images are listed, and sets every image's
// first/count. `image_of[a]` is the index in `images` of annotation a's image; annotations of
// one image keep their order.
void group_by_image(AnnotationTable& table, const std::vector<std::uint32_t>& image_of);

}  // namespace feedrate::annotations
