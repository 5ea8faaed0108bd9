#include <functional>
#include <span>
#include <string>
#include <system_error>

#include "feedrate/error.h"
#include "loader/dataset/annotations/coco.h"
#include "loader/dataset/annotations/mask_folder.h"
#include "loader/dataset/annotations/voc.h"
#include "loader/dataset/annotations/yolo.h"
#include "loader/dataset/dataset_builders.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;
using annotations::AnnotationTable;

bool has_extension(const fs::path& path, std::initializer_list<const char*> extensions) {
  const std::string extension = path.extension().string();
  for (const char* known : extensions) {
    if (extension == known) return true;
  }
  return false;
}

}  // namespace

DetectionTable read_detection_table(const fs::path& source, const fs::path& file,
                                    const SampleSpec& spec) {
  std::error_code error;
  if (file.empty()) {
    // Semantic masks alone: the images of the source, without boxes.
    AnnotationTable table;
    table.images = annotations::list_images(source);
    return {std::move(table), source};
  }
  const bool instances = spec.masks == kInstanceMasks;
  const bool skip_bad = spec.on_bad == BadInputPolicy::kSkip;
  if (has_extension(file, {".json"})) {
    // The segmentations only when masks are asked: without them the parse of a COCO-sized
    // file takes half the time (docs/detection.md).
    AnnotationTable table = annotations::read_coco(file, {spec.labels, instances, skip_bad});
    if (instances && table.segments.empty() && table.annotation_count() > 0) {
      throw Error(file.string() + ": option masks: no annotation has a segmentation");
    }
    return {std::move(table), source};
  }
  if (instances) {
    throw Error(file.string() +
                ": option masks: instance masks come from a COCO json's "
                "segmentations; give a folder of label maps for semantic masks");
  }
  if (has_extension(file, {".yaml", ".yml"})) {
    return {annotations::read_yolo(source, file, {spec.labels, skip_bad}), source};
  }
  if (fs::is_directory(file, error)) {
    // A VOC Annotations/ folder: the root is its parent, which holds JPEGImages/. VOC has no
    // category ids: a class's id is its place in the sorted class list, its zero-based label.
    const fs::path root = file.lexically_normal().parent_path();
    const LabelMode labels =
        spec.labels == LabelMode::kCategoryId ? LabelMode::kZeroBased : spec.labels;
    return {annotations::read_voc(root, {{}, labels, {}, skip_bad}), root};
  }
  if (!fs::exists(file, error)) throw Error(file.string() + ": option annotations: no such file");
  throw Error(file.string() +
              ": option annotations: expected a COCO .json, a YOLO data.yaml or a Pascal VOC "
              "Annotations/ folder");
}

namespace {

// What is wrong with an image's annotations that the reader could not see: a box that lies
// entirely outside the image, where the source states its size. Empty: nothing.
std::string box_problem(const AnnotationTable& table, const annotations::ImageRecord& image) {
  if (table.boxes_normalized || image.width <= 0 || image.height <= 0) return {};
  const std::span<const float> boxes = table.image_boxes(image);
  for (std::size_t b = 0; b < image.count; ++b) {
    const float* box = &boxes[4 * b];
    if (box[0] >= static_cast<float>(image.width) || box[1] >= static_cast<float>(image.height) ||
        box[2] <= 0 || box[3] <= 0) {
      return "annotation " + std::to_string(b) + " of the image, box [" + std::to_string(box[0]) +
             ", " + std::to_string(box[1]) + ", " + std::to_string(box[2]) + ", " +
             std::to_string(box[3]) + "] (XYXY), lies entirely outside its " +
             std::to_string(image.width) + "x" + std::to_string(image.height) + " image";
    }
  }
  return {};
}

}  // namespace

void Dataset::Builder::detection(Dataset& dataset, const fs::path& source) {
  const SampleSpec& spec = dataset.spec_;
  DetectionTable read = read_detection_table(source, spec.annotations, spec);
  dataset.root_ = read.image_root;
  const bool label_maps = !spec.masks.empty() && spec.masks != kInstanceMasks;
  std::vector<fs::path> maps =
      label_maps ? annotations::match_masks(annotations::index_masks(spec.masks), read.table, false)
                 : std::vector<fs::path>();
  const std::string listed = spec.annotations.empty() ? source.string() : spec.annotations.string();
  add_annotated(dataset, std::move(read.table), listed, std::move(maps),
                [&](const annotations::ImageRecord& image, std::string& problem) {
                  std::error_code error;
                  AnnotatedFile file;
                  file.name = (read.image_root / image.file_name).string();
                  file.size = fs::file_size(file.name, error);
                  if (error) {
                    problem = "its file " + file.name + " cannot be read: " + error.message();
                  }
                  return file;
                });
}

void Dataset::Builder::add_annotated(
    Dataset& dataset, AnnotationTable table, const std::string& listed, std::vector<fs::path> maps,
    const std::function<AnnotatedFile(const annotations::ImageRecord&, std::string&)>& locate) {
  const SampleSpec& spec = dataset.spec_;
  for (std::size_t i = 0; i < table.images.size(); ++i) {
    const annotations::ImageRecord& image = table.images[i];
    std::string where =
        listed + ": image " + std::to_string(image.image_id) + " (" + image.file_name + ")";
    if (!maps.empty() && maps[i].empty()) {
      std::string reason = "no label map of its stem in " + spec.masks;
      if (spec.on_missing == BadInputPolicy::kError) throw Error(where + ": " + reason);
      skip(dataset, std::move(where), std::move(reason));
      continue;
    }
    std::string reason = image.problem;
    AnnotatedFile file;
    if (reason.empty()) file = locate(image, reason);
    if (reason.empty()) reason = box_problem(table, image);
    if (!reason.empty()) {
      if (spec.on_bad == BadInputPolicy::kError) throw Error(where + ": " + reason);
      skip(dataset, std::move(where), std::move(reason));
      continue;
    }
    dataset.samples_.push_back(
        {static_cast<std::uint32_t>(dataset.files_.size()), 0, file.size, 0});
    dataset.files_.emplace_back(file.name);
    if (dataset.remote_) {
      dataset.etags_.push_back(std::move(file.etag));
      dataset.file_bytes_.push_back(file.size);
    }
    dataset.annotated_.push_back(static_cast<std::uint32_t>(i));
    if (!maps.empty()) dataset.mask_files_.push_back(std::move(maps[i]));
  }
  for (const annotations::Category& category : table.categories) {
    dataset.classes_.push_back(category.name);
  }
  dataset.annotations_ = std::make_shared<const AnnotationTable>(std::move(table));
}

}  // namespace feedrate
