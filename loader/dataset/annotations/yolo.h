// An Ultralytics YOLO dataset into an AnnotationTable: the images under an `images` folder (every
// file whose name is_image_name accepts, recursively, sorted by path as Ultralytics sorts
// them), each image's labels in the file Ultralytics' img2label_paths names (the last
// "/images/" of its path replaced by "/labels/", the extension by ".txt"), and the class names
// from data.yaml's `names` (a list, or a map of id: name), read with yaml-cpp.
//
// A label line is `class cx cy w h`, normalized to the image; when any line of a file has more
// than 6 values the file is in the segment format, `class x1 y1 x2 y2 ...`, and each line's box
// is its polygon's extent (Ultralytics' segments2boxes). Values are float32, as Ultralytics'
// numpy arrays, and boxes go cxcywh -> XYXY as its xywh2xyxy. An image without a label file, or
// with an empty one, has no boxes; a duplicate line is dropped (Ultralytics drops it too, but
// reorders the rest; here they keep the file's order).
//
// The boxes (and segment points) stay normalized (boxes_normalized): Ultralytics' labels are
// fractions of a size the dataset does not store, and reading every image's header at index
// time would cost a read per image before the first batch (a request per image for a remote
// source), while the decoder reads the header anyway: to_pixels converts once it has.
//
// Throws feedrate::Error naming the file and line: a value that is not a number, a class that is
// not an integer or not in names, a coordinate outside [0, 1], a line of the wrong length, a
// data.yaml without names. Thread-safety: a pure function of the files.
#pragma once

#include <filesystem>

#include "loader/dataset/annotations/annotation_table.h"

namespace feedrate::annotations {

struct YoloOptions {
  // kCategoryId keeps the files' class ids (names' keys); kZeroBased and kContiguous number the
  // names in id order from 0 or 1 (for names 0..C-1, kZeroBased is kCategoryId).
  LabelMode label_mode = LabelMode::kCategoryId;
  // A label file with a bad line marks its image's ImageRecord::problem (the file and line)
  // instead of failing the read; the image then has no annotations.
  bool skip_bad = false;
};

AnnotationTable read_yolo(const std::filesystem::path& images,
                          const std::filesystem::path& data_yaml, const YoloOptions& options = {});

}  // namespace feedrate::annotations
