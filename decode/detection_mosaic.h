// Ultralytics' 4-image Mosaic (ultralytics/data/augment.py: Mosaic with n=4) and the image
// loading it starts from (data/base.py: BaseDataset.load_image for training).
//
// load_image is public: the loader loads each image once and may reuse it as a partner of later
// samples, as Ultralytics' buffer does. The rest is internal to
// DetectionTransformer::run_mosaic (decode/detection_transform.h): the layout of the four
// images on the 2s x 2s canvas as a cv2::WarpSource (the canvas itself stays virtual) and the
// boxes moved onto it.
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "decode/cv2_kernels.h"
#include "decode/random.h"

namespace feedrate::decode {

// An image already loaded by load_image (packed RGB, width x height), its boxes, XYXY in its
// pixels (4 floats a box), and its mask planes at its size (empty: none; instance masks: one a
// box, in the boxes' order; a semantic map: one). Views: the caller owns the memory.
struct MosaicImage {
  std::span<const std::uint8_t> pixels;
  int width = 0, height = 0;
  std::span<const float> boxes;
  std::span<const std::uint8_t> masks;
};

// BaseDataset.load_image(rect_mode=True) of `rgb` (packed RGB, width x height) for imgsz
// `size`: r = size / max(height, width); when r != 1 the image is resized with cv2.resize
// INTER_LINEAR to (min(ceil(width r), size), min(ceil(height r), size)), else copied, into
// `out` (out_width x out_height). `boxes` (XYXY pixels of the original, 4 floats a box) are
// moved in place to the loaded image's pixels as Ultralytics' normalized labels end up there:
// x / width * out_width in float32 (and y likewise). Throws std::invalid_argument for an
// image whose size disagrees with `rgb`, a size < 1 or boxes not 4 floats each.
void load_image(const std::vector<std::uint8_t>& rgb, int width, int height, int size,
                std::vector<std::uint8_t>& out, int& out_width, int& out_height,
                std::span<float> boxes);

// Mosaic's centre: yc, then xc, each int(uniform(-b, 2s + b)) with its border b = -s // 2 (so
// in [s/2, 3s/2]).
void draw_mosaic_centre(int size, Rng& rng, int& x, int& y);

// The 2s x 2s canvas of _mosaic4 (fill 114) with the four images placed around (x, y) in the
// order top left, top right, bottom left, bottom right, each cut at the canvas' edge. The
// source views `images`' pixels. Requires 0 <= x, y <= 2s.
cv2::WarpSource mosaic_source(int size, int x, int y, std::span<const MosaicImage, 4> images);

// The four images' boxes concatenated, each shifted by its tile's pad (float32, as
// Instances.add_padding), clipped to the canvas and those of zero area dropped (_cat_labels);
// `kept` gets, for each box left, its index in the concatenation.
void mosaic_boxes(const cv2::WarpSource& source, std::span<const MosaicImage, 4> images,
                  std::vector<float>& boxes, std::vector<std::uint32_t>& kept);

// Writes the canvas of `source` (packed RGB, fill 114 outside the tiles) to `out`.
void write_canvas(const cv2::WarpSource& source, std::uint8_t* out);

// The images' mask planes on the canvas of `source`, into `planes` (each source.width x
// source.height): for instance masks one plane a box of `kept` (indices in the concatenation of
// the images' boxes, as mosaic_boxes gives them) with its image's plane on its tile and 0
// elsewhere; for semantic maps one plane of the four maps on their tiles and 255 elsewhere.
// Returns the planes' count. Throws std::invalid_argument for masks whose size disagrees with
// their image and boxes.
int mosaic_masks(const cv2::WarpSource& source, std::span<const MosaicImage, 4> images,
                 std::span<const std::uint32_t> kept, bool semantic,
                 std::vector<std::uint8_t>& planes);

}  // namespace feedrate::decode
