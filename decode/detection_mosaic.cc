#include "decode/detection_mosaic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace feedrate::decode {

namespace {

// Ultralytics' canvas fill.
constexpr std::uint8_t kFill = 114;

// Python's -size // 2 (floor division).
int mosaic_border(int size) {
  return -((size + 1) / 2);
}

// Copies the part of `image` (the tile's image: t.width wide, `channels` bytes a pixel) that
// tile `t` shows into `canvas` (canvas_width wide, as many bytes a pixel).
void copy_tile(const cv2::WarpSource::Tile& t, const std::uint8_t* image, int channels,
               int canvas_width, std::uint8_t* canvas) {
  if (t.x0 >= t.x1 || t.y0 >= t.y1) return;
  const auto c = static_cast<std::size_t>(channels);
  const std::size_t bytes = static_cast<std::size_t>(t.x1 - t.x0) * c;
  for (int y = t.y0; y < t.y1; ++y) {
    std::memcpy(canvas + (static_cast<std::size_t>(y) * canvas_width + t.x0) * c,
                image + (static_cast<std::size_t>(y - t.pad_y) * t.width + (t.x0 - t.pad_x)) * c,
                bytes);
  }
}

}  // namespace

void load_image(const std::vector<std::uint8_t>& rgb, int width, int height, int size,
                std::vector<std::uint8_t>& out, int& out_width, int& out_height,
                std::span<float> boxes) {
  if (width < 1 || height < 1 || size < 1 ||
      rgb.size() < static_cast<std::size_t>(width) * height * 3 || boxes.size() % 4 != 0) {
    throw std::invalid_argument(
        "load_image: the image, its size or its boxes (4 floats each) do not agree");
  }
  // r and the new size in float64, as Python computes them.
  const double r = static_cast<double>(size) / std::max(height, width);
  if (r == 1) {
    out_width = width;
    out_height = height;
    out.assign(rgb.begin(), rgb.begin() + static_cast<std::ptrdiff_t>(width) * height * 3);
    return;
  }
  out_width = std::min(static_cast<int>(std::ceil(width * r)), size);
  out_height = std::min(static_cast<int>(std::ceil(height * r)), size);
  out.resize(static_cast<std::size_t>(out_width) * out_height * 3);
  // resize_linear only reads its source (ImageView holds a mutable pointer).
  cv2::resize_linear(ImageView{const_cast<std::uint8_t*>(rgb.data()), width, height},
                     ImageView{out.data(), out_width, out_height});
  // Ultralytics keeps the labels normalized and denormalizes them with the loaded size.
  const auto w0 = static_cast<float>(width), h0 = static_cast<float>(height);
  const auto w = static_cast<float>(out_width), h = static_cast<float>(out_height);
  for (std::size_t i = 0; i < boxes.size(); i += 2) {
    boxes[i] = boxes[i] / w0 * w;
    boxes[i + 1] = boxes[i + 1] / h0 * h;
  }
}

void draw_mosaic_centre(int size, Rng& rng, int& x, int& y) {
  const int b = mosaic_border(size);
  y = static_cast<int>(rng.uniform(-b, 2 * size + b));
  x = static_cast<int>(rng.uniform(-b, 2 * size + b));
}

cv2::WarpSource mosaic_source(int size, int x, int y, std::span<const MosaicImage, 4> images) {
  const int s2 = 2 * size;
  cv2::WarpSource source;
  source.width = source.height = s2;
  source.split_x = x;
  source.split_y = y;
  for (int i = 0; i < 4; ++i) {
    const MosaicImage& image = images[i];
    const int w = image.width, h = image.height;
    cv2::WarpSource::Tile& t = source.tiles[i];
    t.pixels = image.pixels.data();
    t.width = w;
    // _mosaic4's canvas rectangle (x1a, y1a, x2a, y2a) and pad (padw, padh): the image's right
    // (bottom) edge at the centre left of (above) it, its left (top) edge there right of
    // (below) it.
    const bool right = i == 1 || i == 3, below = i >= 2;
    t.x0 = right ? x : std::max(x - w, 0);
    t.x1 = right ? std::min(x + w, s2) : x;
    t.y0 = below ? y : std::max(y - h, 0);
    t.y1 = below ? std::min(y + h, s2) : y;
    t.pad_x = right ? x : x - w;
    t.pad_y = below ? y : y - h;
  }
  return source;
}

void mosaic_boxes(const cv2::WarpSource& source, std::span<const MosaicImage, 4> images,
                  std::vector<float>& boxes, std::vector<std::uint32_t>& kept) {
  boxes.clear();
  kept.clear();
  const auto w = static_cast<float>(source.width), h = static_cast<float>(source.height);
  std::uint32_t index = 0;
  for (int i = 0; i < 4; ++i) {
    const cv2::WarpSource::Tile& t = source.tiles[i];
    const std::span<const float> in = images[i].boxes;
    for (std::size_t k = 0; k + 3 < in.size(); k += 4, ++index) {
      const float x1 = std::clamp(in[k] + static_cast<float>(t.pad_x), 0.0f, w);
      const float y1 = std::clamp(in[k + 1] + static_cast<float>(t.pad_y), 0.0f, h);
      const float x2 = std::clamp(in[k + 2] + static_cast<float>(t.pad_x), 0.0f, w);
      const float y2 = std::clamp(in[k + 3] + static_cast<float>(t.pad_y), 0.0f, h);
      if (!((x2 - x1) * (y2 - y1) > 0)) continue;
      boxes.insert(boxes.end(), {x1, y1, x2, y2});
      kept.push_back(index);
    }
  }
}

void write_canvas(const cv2::WarpSource& source, std::uint8_t* out) {
  std::memset(out, kFill, static_cast<std::size_t>(source.width) * source.height * 3);
  for (const cv2::WarpSource::Tile& t : source.tiles) copy_tile(t, t.pixels, 3, source.width, out);
}

int mosaic_masks(const cv2::WarpSource& source, std::span<const MosaicImage, 4> images,
                 std::span<const std::uint32_t> kept, bool semantic,
                 std::vector<std::uint8_t>& planes) {
  const std::size_t plane = static_cast<std::size_t>(source.width) * source.height;
  std::array<std::uint32_t, 5> first{};  // each image's first box in the concatenation
  for (int i = 0; i < 4; ++i) {
    const MosaicImage& image = images[i];
    const std::size_t pixels = static_cast<std::size_t>(image.width) * image.height;
    const std::size_t boxes = image.boxes.size() / 4;
    if (image.masks.size() != pixels * (semantic ? 1 : boxes)) {
      throw std::invalid_argument("mosaic_masks: an image's mask planes do not agree with it");
    }
    first[i + 1] = first[i] + static_cast<std::uint32_t>(boxes);
  }
  if (semantic) {
    planes.assign(plane, 255);
    for (int i = 0; i < 4; ++i) {
      copy_tile(source.tiles[i], images[i].masks.data(), 1, source.width, planes.data());
    }
    return 1;
  }
  planes.assign(plane * kept.size(), 0);
  for (std::size_t k = 0; k < kept.size(); ++k) {
    int i = 0;
    while (kept[k] >= first[i + 1]) ++i;
    const std::size_t pixels = static_cast<std::size_t>(images[i].width) * images[i].height;
    copy_tile(source.tiles[i], images[i].masks.data() + (kept[k] - first[i]) * pixels, 1,
              source.width, planes.data() + k * plane);
  }
  return static_cast<int>(kept.size());
}

}  // namespace feedrate::decode
