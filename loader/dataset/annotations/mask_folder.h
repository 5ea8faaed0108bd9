// A folder of semantic masks (VOC's SegmentationClass/, Cityscapes-like label PNGs) matched to a
// table's images by file stem: "2007_000032.jpg" takes "2007_000032.png". Only the matching:
// decoding a mask is the decoder's job.
//
// Throws feedrate::Error naming the folder: two masks with one stem (a.png and a.bmp), a folder
// that cannot be listed. Thread-safety: pure functions.
#pragma once

#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "loader/dataset/annotations/annotation_table.h"

namespace feedrate::annotations {

// Stem -> path of every image file (is_image_name) directly in `folder`.
std::unordered_map<std::string, std::filesystem::path> index_masks(
    const std::filesystem::path& folder);

// Per image of `table`, the mask of its file name's stem; an empty path for an image without
// one, or an error naming the first such image when `required`.
std::vector<std::filesystem::path> match_masks(
    const std::unordered_map<std::string, std::filesystem::path>& masks,
    const AnnotationTable& table, bool required);

}  // namespace feedrate::annotations
