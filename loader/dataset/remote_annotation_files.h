// The annotation files of a remote detection dataset in a local temporary folder, for the
// readers of local ones (loader/dataset/annotations/): a YOLO data.yaml or COCO json at a URL
// (one GET), and a YOLO labels/ or VOC Annotations/ folder or a folder of label maps under an
// s3:// prefix, mirrored with the images' layout (loader/dataset/remote_detection.cc). Label
// maps are read per sample: the Dataset keeps their folder for its life. The folder's files are
// fetched with several GETs in flight (a store per thread); each image becomes an empty
// placeholder, since the readers only list images. The folder is removed with the object.
//
// Thread-safety: construct and read from one thread; the constructor's fetch threads end in it.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/remote/object_store.h"
#include "loader/dataset/remote_settings.h"

namespace feedrate {

class RemoteAnnotationFiles {
 public:
  // An empty temporary folder. Throws feedrate::Error naming it when it cannot be made.
  RemoteAnnotationFiles();
  ~RemoteAnnotationFiles();
  RemoteAnnotationFiles(const RemoteAnnotationFiles&) = delete;
  RemoteAnnotationFiles& operator=(const RemoteAnnotationFiles&) = delete;

  const std::filesystem::path& root() const { return root_; }

  // The object at `url` as root()/`name`. Throws feedrate::Error naming the URL or the file.
  std::filesystem::path fetch(io::ObjectStore& store, const std::string& url,
                              const std::string& name);
  // Every object of `objects` (each under `prefix`) at root()/`into`/its key relative to
  // `prefix`: with its bytes where `with_bytes(relative key)`, else empty. Throws
  // feedrate::Error naming the first object that cannot be fetched or written.
  void mirror(const RemoteSettings& settings, const std::string& prefix,
              const std::vector<io::ObjectInfo>& objects, const std::string& into,
              const std::function<bool(std::string_view)>& with_bytes);

 private:
  void write(const std::filesystem::path& path, std::string_view bytes) const;

  std::filesystem::path root_;
};

}  // namespace feedrate
