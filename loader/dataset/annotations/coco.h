// COCO's instances_*.json (images, annotations, categories) into an AnnotationTable, parsed with
// simdjson's on-demand API in one pass over the file.
//
// Images are listed in ascending image id, as torchvision's CocoDetection lists them (sorted
// coco.imgs keys), each with its annotations in file order; an image without annotations is kept
// with none. bbox [x, y, w, h] becomes XYXY [x, y, x + w, y + h] in float32 (torchvision's
// convert_bounding_box_format of the float32 tensor); iscrowd sets kCrowd; segmentation is a
// list of polygons, or an RLE {"counts": [...] (uncompressed) or "..." (COCO's compressed
// string), "size": [h, w]}, stored as counts.
//
// Throws feedrate::Error naming the file and the problem: a malformed document (simdjson's error
// and the byte offset), a box with negative width or height, an annotation of an unknown
// image_id or category, a duplicate image or category id, a field of the wrong type.
// Thread-safety: a pure function of the file.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "loader/dataset/annotations/annotation_table.h"

namespace feedrate::annotations {

struct CocoOptions {
  LabelMode label_mode = LabelMode::kCategoryId;
  // False skips the segmentations (a detection-only table: no points, no RLE counts).
  bool segmentation = true;
  // An annotation with a bad box (negative width or height, not 4 values) or an unknown
  // category marks its image's ImageRecord::problem instead of failing the read. A malformed
  // file, an annotation without image_id or of an unknown image still fails.
  bool skip_bad = false;
};

AnnotationTable read_coco(const std::filesystem::path& json, const CocoOptions& options = {});

// WebDataset shards whose KEY.json holds one image's annotations in COCO's form: a list of
// annotation objects (bbox [x, y, w, h], category_id, iscrowd, segmentation; no image_id
// needed), or an object with that list as "annotations" and the image's "image_id", "width"
// and "height" when it states them. `image` names the image (the table's file_name) and
// `where` the member in messages.
struct CocoMember {
  std::string_view json;
  std::string image;
  std::string where;
};
// One table for every member, in their order unless members state image ids (then ascending
// id, as read_coco orders images); image_id is the member's position when it states none. The
// categories are every category_id found, named by the id. Throws feedrate::Error naming the
// member: JSON that does not parse, a bad annotation (unless skip_bad), an image id twice.
AnnotationTable read_coco_members(std::span<const CocoMember> members,
                                  const CocoOptions& options = {});

}  // namespace feedrate::annotations
