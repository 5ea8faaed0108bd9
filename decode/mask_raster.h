// COCO masks as pycocotools makes them: polygons and run-length encodings (RLE) to a uint8 mask,
// with the semantics of pycocotools' maskApi.c (rleFrPoly, rleFrString, rleDecode), so that a
// mask rasterized here equals annToMask's.
//
// An RLE holds alternating runs of 0 and 1 (the first run is of zeros, possibly empty) over the
// image in column-major order (index x * height + y), as COCO stores it. Polygons are x, y pairs
// in pixels; a polygon is rasterized on a 5x finer grid along its boundary, as rleFrPoly does
// (points outside the image are clipped). Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace feedrate::decode {

// rleFrPoly: the RLE counts of one polygon (xy: k points, 2k values, k >= 1) on height x width.
std::vector<std::uint32_t> polygon_to_rle(std::span<const double> xy, int height, int width);

// rleFrString: the counts of COCO's compressed RLE string (the "counts" of
// {"size": [h, w], "counts": "..."}). Returns false, with `error` saying why, for a character
// outside COCO's alphabet ('0' + 0..63) or a run that overflows.
bool rle_from_string(std::string_view text, std::vector<std::uint32_t>& counts, std::string& error);

// rleDecode into a row-major height x width mask (mask[y * width + x]), OR-ed into what `mask`
// holds (so several RLEs of one annotation merge as pycocotools' merge does). Returns an empty
// string, or what is wrong: runs that add up to more than height * width (pycocotools reads past
// its buffer there), or a mask of the wrong size. Runs that stop short leave the rest as it was.
std::string decode_rle(std::span<const std::uint32_t> counts, int height, int width,
                       std::span<std::uint8_t> mask);

// annToMask of a polygon segmentation: every polygon (polygons[i] is a range of `xy`) rasterized
// and OR-ed into `mask` (row-major, height * width bytes, not cleared first).
struct PolygonRange {
  std::uint32_t first = 0;  // index of its first value in xy
  std::uint32_t count = 0;  // values (twice the points)
};
void rasterize_polygons(std::span<const double> xy, std::span<const PolygonRange> polygons,
                        int height, int width, std::span<std::uint8_t> mask);

}  // namespace feedrate::decode
