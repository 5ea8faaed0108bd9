#include <algorithm>
#include <cctype>
#include <system_error>

#include "loader/dataset_builders.h"
#include "loader/error.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

bool is_jpeg_name(const fs::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".jpg" || extension == ".jpeg";
}

// Files of one class in torchvision's order: directories walked in sorted order (os.walk over
// sorted()), and file names sorted within each directory; symlinks followed.
void collect(const fs::path& directory, std::vector<fs::path>& out) {
  std::vector<fs::path> files, subdirectories;
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error) throw Error(directory.string() + ": cannot list: " + error.message());
  for (const auto& entry : it) {
    if (entry.is_directory(error)) {
      subdirectories.push_back(entry.path());
    } else if (is_jpeg_name(entry.path())) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::sort(subdirectories.begin(), subdirectories.end());
  out.insert(out.end(), files.begin(), files.end());
  for (const fs::path& sub : subdirectories) collect(sub, out);
}

}  // namespace

void Dataset::Builder::image_folder(Dataset& dataset, const fs::path& root) {
  std::error_code error;
  std::vector<fs::path> class_dirs;
  fs::directory_iterator it(root, error);
  if (error) throw Error(root.string() + ": cannot list: " + error.message());
  for (const auto& entry : it) {
    if (entry.is_directory(error)) class_dirs.push_back(entry.path());
  }
  if (class_dirs.empty()) {
    throw Error(root.string() + ": no class folders (expected root/<class>/<image>.jpg)");
  }
  // Class names sort by their bytes, as Python's sorted() does on str of ASCII names.
  std::sort(class_dirs.begin(), class_dirs.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  std::vector<fs::path> images;
  for (std::size_t label = 0; label < class_dirs.size(); ++label) {
    dataset.classes_.push_back(class_dirs[label].filename().string());
    images.clear();
    collect(class_dirs[label], images);
    for (fs::path& image : images) {
      const std::uint64_t size = fs::file_size(image, error);
      if (error) throw Error(image.string() + ": cannot stat: " + error.message());
      dataset.samples_.push_back({static_cast<std::uint32_t>(dataset.files_.size()), 0, size,
                                  static_cast<std::int32_t>(label)});
      dataset.files_.push_back(std::move(image));
    }
  }
}

}  // namespace feedrate
