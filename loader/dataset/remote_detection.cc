#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

#include "feedrate/error.h"
#include "io/remote/object_store.h"
#include "io/remote/url.h"
#include "loader/dataset/annotations/mask_folder.h"
#include "loader/dataset/dataset_builders.h"
#include "loader/dataset/remote_annotation_files.h"
#include "loader/dataset/remote_objects.h"
#include "loader/dataset/remote_settings.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

// COCO's instances_train2017.json is 448 MB: the annotations' GET may be that large.
constexpr std::size_t kMostAnnotationBytes = std::size_t{4} << 30;

template <typename T>
T value_or_throw(io::RemoteResult<T> result) {
  if (!result.ok()) throw Error(result.message);
  return std::move(result.value);
}

std::string with_slash(std::string url) {
  if (!url.ends_with("/")) url += '/';
  return url;
}

// The local copies the readers read: where the images folder `root` lies among them, and the
// annotations (fetched when they are at a URL; a YOLO labels/ or VOC Annotations/ folder under
// an s3:// prefix is mirrored). `objects`: the listing of `root` (s3:// only).
struct LocalCopies {
  fs::path source;
  fs::path annotations;
};

LocalCopies copy_annotations(const std::string& root, const std::string& annotations, bool s3,
                             const std::vector<io::ObjectInfo>& objects,
                             const RemoteSettings& settings, io::ObjectStore& store,
                             RemoteAnnotationFiles& files) {
  const bool at_url = io::is_url(annotations);
  if (annotations.empty()) {
    // Label maps alone: the images listed under the prefix, as placeholders.
    if (!s3) {
      throw Error(root +
                  ": an https:// server lists no folder: images with label maps alone "
                  "are read from an s3:// prefix");
    }
    files.mirror(settings, root, objects, "images", [](std::string_view) { return false; });
    return {files.root() / "images", {}};
  }
  if (annotations.ends_with(".json")) {
    return {root,
            at_url ? files.fetch(store, annotations, "annotations.json") : fs::path(annotations)};
  }
  const bool yolo = annotations.ends_with(".yaml") || annotations.ends_with(".yml");
  if (!s3) {
    throw Error(root + ": an https:// server lists no folder: a remote " + (yolo ? "YOLO" : "VOC") +
                " dataset is read from an s3:// prefix (a COCO json may go with https://)");
  }
  if (yolo) {
    // Ultralytics' layout: ROOT/images/SPLIT/..., its labels at ROOT/labels/SPLIT/... .txt.
    const std::size_t at = root.rfind("/images/");
    if (at == std::string::npos) {
      throw Error(root + ": a YOLO images folder lies under an images/ folder, beside labels/");
    }
    const std::string base = root.substr(0, at + 1);
    const std::string labels = base + "labels/" + root.substr(at + 8);
    files.mirror(settings, base, objects, "", [](std::string_view) { return false; });
    files.mirror(settings, base, value_or_throw(store.list(labels)), "",
                 [](std::string_view key) { return key.ends_with(".txt"); });
    const fs::path yaml =
        at_url ? files.fetch(store, annotations, "data.yaml") : fs::path(annotations);
    return {files.root() / root.substr(base.size()), yaml};
  }
  // Pascal VOC: the root holds JPEGImages/ and the Annotations/ folder named.
  if (with_slash(annotations) != root + "Annotations/") {
    throw Error(annotations + ": a remote VOC dataset's annotations are its root's Annotations/ (" +
                root + "Annotations/)");
  }
  std::vector<io::ObjectInfo> xml;
  for (const io::ObjectInfo& object : objects) {
    const std::string_view key = std::string_view(object.url).substr(root.size());
    if (key.starts_with("Annotations/") && key.ends_with(".xml")) xml.push_back(object);
  }
  files.mirror(settings, root, xml, "", [](std::string_view) { return true; });
  return {files.root(), files.root() / "Annotations"};
}

// The folder of label maps `masks` names: itself when local, else its objects (an s3:// prefix)
// fetched into `files`' "masks".
fs::path label_maps(const std::string& masks, const RemoteSettings& settings,
                    io::ObjectStore& store, RemoteAnnotationFiles& files) {
  if (!io::is_url(masks)) return masks;
  const std::string prefix = with_slash(masks);
  if (io::parse_url(prefix).scheme != io::UrlScheme::kS3) {
    throw Error(masks +
                ": an https:// server lists no folder: label maps are read from an "
                "s3:// prefix or a local folder");
  }
  files.mirror(settings, prefix, value_or_throw(store.list(prefix)), "masks",
               [](std::string_view) { return true; });
  return files.root() / "masks";
}

}  // namespace

void Dataset::Builder::remote_detection(Dataset& dataset, const std::string& source) {
  const SampleSpec& spec = dataset.spec_;
  const std::string annotations = spec.annotations.string();
  const std::string root = with_slash(source);
  RemoteSettings settings = remote_settings(root);
  settings.store.max_get_bytes = kMostAnnotationBytes;
  io::ObjectStore store(settings.s3, settings.store);
  // One listing of the prefix on S3; a HEAD per image on an HTTP server, which lists nothing.
  const bool s3 = io::parse_url(root).scheme == io::UrlScheme::kS3;
  const std::vector<io::ObjectInfo> objects =
      s3 ? value_or_throw(store.list(root)) : std::vector<io::ObjectInfo>();
  DetectionTable read;
  std::vector<fs::path> maps;
  auto files = std::make_shared<RemoteAnnotationFiles>();
  try {
    const LocalCopies local =
        copy_annotations(root, annotations, s3, objects, settings, store, *files);
    read = read_detection_table(local.source, local.annotations, spec);
    if (!spec.masks.empty() && spec.masks != kInstanceMasks) {
      maps = annotations::match_masks(
          annotations::index_masks(label_maps(spec.masks, settings, store, *files)), read.table,
          false);
    }
  } catch (const std::system_error& e) {
    throw Error(std::string("option annotations: a local copy: ") + e.what());
  }
  RemoteObjects located;
  if (s3) located.add_listing(root, objects);
  add_annotated(
      dataset, std::move(read.table), annotations.empty() ? source : annotations, std::move(maps),
      [&](const annotations::ImageRecord& image, std::string& problem) {
        AnnotatedFile file;
        file.name = root + image.file_name;
        if (const std::optional<io::ObjectInfo> object = located.find(file.name, problem)) {
          file.size = object->size;
          file.etag = object->etag;
        }
        return file;
      });
  // Label maps are read per sample from their local copies.
  if (dataset.has_mask_files()) dataset.local_copies_ = std::move(files);
}

}  // namespace feedrate
