#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>

#include "feedrate/error.h"
#include "io/remote/object_store.h"
#include "io/remote/url.h"
#include "io/temp_file.h"
#include "loader/dataset/annotations/coco.h"
#include "loader/dataset/dataset_builders.h"
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

}  // namespace

void Dataset::Builder::remote_detection(Dataset& dataset, const std::string& source) {
  const SampleSpec& spec = dataset.spec_;
  const std::string annotations = spec.annotations.string();
  if (!annotations.ends_with(".json") || (!spec.masks.empty() && spec.masks != kInstanceMasks)) {
    throw Error(source +
                ": a remote detection dataset is a COCO json (local or remote) over "
                "s3:// or https:// images; YOLO, VOC and label-map folders are read "
                "from a local disk only for now");
  }
  const std::string root = source.ends_with("/") ? source : source + "/";
  RemoteSettings settings = remote_settings(root);
  settings.store.max_get_bytes = kMostAnnotationBytes;
  io::ObjectStore store(settings.s3, settings.store);
  const annotations::CocoOptions options{spec.labels, spec.masks == kInstanceMasks,
                                         spec.on_bad == BadInputPolicy::kSkip};
  annotations::AnnotationTable table;
  try {
    if (io::is_url(annotations)) {
      // Fetched once into a temporary file, which the parser maps as it maps a local one.
      const io::TempFile copy(fs::temp_directory_path(), "feedrate-annotations");
      {
        std::string bytes = value_or_throw(store.get(annotations));
        std::FILE* out = std::fopen(copy.path().c_str(), "wb");
        const bool written =
            out != nullptr && std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
        if (out == nullptr || std::fclose(out) != 0 || !written) {
          throw Error(copy.path().string() + ": cannot write the copy of " + annotations);
        }
      }
      table = annotations::read_coco(copy.path(), options);
    } else {
      table = annotations::read_coco(annotations, options);
    }
  } catch (const std::system_error& e) {
    throw Error(std::string("option annotations: a temporary copy: ") + e.what());
  }
  // One listing of the prefix on S3; a HEAD per image on an HTTP server, which lists nothing.
  std::map<std::string, io::ObjectInfo> listed;
  const bool s3 = io::parse_url(root).scheme == io::UrlScheme::kS3;
  if (s3) {
    for (io::ObjectInfo& object : value_or_throw(store.list(root))) {
      listed.emplace(object.url, std::move(object));
    }
  }
  add_annotated(dataset, std::move(table), annotations, {},
                [&](const annotations::ImageRecord& image, std::string& problem) {
                  AnnotatedFile file;
                  file.name = root + image.file_name;
                  io::ObjectInfo object;
                  if (s3) {
                    const auto found = listed.find(file.name);
                    if (found == listed.end()) {
                      problem = file.name + ": no such object";
                      return file;
                    }
                    object = found->second;
                  } else {
                    io::RemoteResult<io::ObjectInfo> found = store.stat(file.name);
                    if (!found.ok()) {
                      problem = found.message;
                      return file;
                    }
                    object = std::move(found.value);
                  }
                  file.size = object.size;
                  file.etag = object.etag;
                  return file;
                });
}

}  // namespace feedrate
