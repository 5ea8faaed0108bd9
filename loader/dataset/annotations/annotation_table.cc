#include "loader/dataset/annotations/annotation_table.h"

#include <algorithm>

#include "feedrate/dataset.h"
#include "feedrate/error.h"

namespace feedrate::annotations {

std::vector<ImageRecord> list_images(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(folder, error)) throw Error(folder.string() + ": not a folder of images");
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(folder, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_regular_file() && is_image_name(it->path().filename().string())) {
      files.push_back(it->path());
    }
  }
  if (error) throw Error(folder.string() + ": cannot list: " + error.message());
  std::sort(files.begin(), files.end());
  std::vector<ImageRecord> images;
  for (const fs::path& file : files) {
    ImageRecord record;
    record.image_id = static_cast<std::int64_t>(images.size());
    record.file_name = file.lexically_relative(folder).string();
    images.push_back(std::move(record));
  }
  return images;
}

std::int64_t label_of(LabelMode mode, std::size_t index, std::int64_t source_id) {
  switch (mode) {
    case LabelMode::kCategoryId:
      return source_id;
    case LabelMode::kContiguous:
      return static_cast<std::int64_t>(index) + 1;
    case LabelMode::kZeroBased:
      return static_cast<std::int64_t>(index);
  }
  return source_id;
}

void to_pixels(std::span<float> boxes, int width, int height) {
  const float w = static_cast<float>(width);
  const float h = static_cast<float>(height);
  for (std::size_t i = 0; i + 3 < boxes.size(); i += 4) {
    boxes[i] *= w;
    boxes[i + 1] *= h;
    boxes[i + 2] *= w;
    boxes[i + 3] *= h;
  }
}

namespace {

template <typename T>
void permute(std::vector<T>& values, const std::vector<std::uint32_t>& order, std::size_t width) {
  if (values.empty()) return;
  std::vector<T> out(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (std::size_t k = 0; k < width; ++k) out[i * width + k] = values[order[i] * width + k];
  }
  values = std::move(out);
}

}  // namespace

void group_by_image(AnnotationTable& table, const std::vector<std::uint32_t>& image_of) {
  // A counting sort by image: stable, so an image's annotations keep the source's order.
  for (ImageRecord& image : table.images) image.count = 0;
  for (std::uint32_t image : image_of) ++table.images[image].count;
  std::uint32_t next = 0;
  for (ImageRecord& image : table.images) {
    image.first = next;
    next += image.count;
  }
  std::vector<std::uint32_t> order(image_of.size());
  std::vector<std::uint32_t> cursor(table.images.size());
  for (std::size_t i = 0; i < table.images.size(); ++i) cursor[i] = table.images[i].first;
  for (std::size_t a = 0; a < image_of.size(); ++a) {
    order[cursor[image_of[a]]++] = static_cast<std::uint32_t>(a);
  }
  permute(table.boxes, order, 4);
  permute(table.labels, order, 1);
  permute(table.flags, order, 1);
  permute(table.segments, order, 1);
}

}  // namespace feedrate::annotations
