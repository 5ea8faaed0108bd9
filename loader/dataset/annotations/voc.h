// A Pascal VOC tree (Annotations/*.xml, JPEGImages/) into an AnnotationTable, read with pugixml.
//
// The images are those of an image set file (ImageSets/Main/train.txt: an id per line, its
// first word), or
// every Annotations/*.xml in name order; file_name is "JPEGImages/" + <filename>, image_id the
// position in that order, width and height from <size>. Each <object> gives <name>, <difficult>
// (kDifficult) and <bndbox>, whose 1-based inclusive pixel indices become the continuous box
// [xmin - 1, ymin - 1, xmax, ymax]: the pixels xmin..xmax of the VOC devkit (which measures a
// box as xmax - xmin + 1 pixels wide) cover [xmin - 1, xmax) in 0-based coordinates, the
// convention of detectron2's load_voc_instances (it subtracts 1 from xmin and ymin only).
//
// Class names become labels through `classes` when given (a name not in it is an error), else
// through the sorted set of names found; under kZeroBased a class's label is its index, under
// kContiguous its index + 1 (kCategoryId is refused: VOC has no ids).
//
// Throws feedrate::Error naming the file: an XML parse error (pugixml's description and offset),
// a missing element, a coordinate that is not a number, xmax < xmin or ymax < ymin.
// Thread-safety: a pure function of the files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "loader/dataset/annotations/annotation_table.h"

namespace feedrate::annotations {

struct VocOptions {
  std::vector<std::string> classes;  // empty: the sorted names found
  LabelMode label_mode = LabelMode::kZeroBased;
  std::filesystem::path image_set;  // relative to the root, or absolute; empty: every xml
  // A file that does not parse, or an object without a name or a box or with xmax < xmin,
  // marks its image's ImageRecord::problem instead of failing the read (the image keeps no
  // annotations; its file name is the xml's stem + .jpg when the file does not say).
  bool skip_bad = false;
};

AnnotationTable read_voc(const std::filesystem::path& root, const VocOptions& options = {});

}  // namespace feedrate::annotations
