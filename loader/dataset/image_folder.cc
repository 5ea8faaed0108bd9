#include <algorithm>
#include <string>
#include <system_error>
#include <utility>

#include "feedrate/error.h"
#include "loader/dataset/dataset_builders.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

// Files of one class in torchvision's order, sorted(os.walk(class_dir, followlinks=True)):
// directories by their path as a string (os.walk's tuples sort by root first), names sorted
// within each directory; symlinks followed. Files whose extension is not an image's go to
// `ignored`.
void collect(const fs::path& directory,
             std::vector<std::pair<std::string, std::vector<fs::path>>>& dirs,
             std::vector<fs::path>& ignored) {
  std::vector<fs::path> files;
  std::vector<fs::path> subdirectories;
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error) throw Error(directory.string() + ": cannot list: " + error.message());
  for (const auto& entry : it) {
    if (entry.is_directory(error)) {
      subdirectories.push_back(entry.path());
    } else if (is_image_name(entry.path().filename().string())) {
      files.push_back(entry.path());
    } else {
      ignored.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  dirs.emplace_back(directory.string(), std::move(files));
  for (const fs::path& sub : subdirectories) collect(sub, dirs, ignored);
}

}  // namespace

void Dataset::Builder::image_folder(Dataset& dataset, const fs::path& root,
                                    bool allow_empty_classes) {
  std::error_code error;
  std::vector<fs::path> class_dirs;
  fs::directory_iterator it(root, error);
  if (error) throw Error(root.string() + ": cannot list: " + error.message());
  for (const auto& entry : it) {
    if (entry.is_directory(error)) class_dirs.push_back(entry.path());
  }
  if (class_dirs.empty()) {
    throw Error(root.string() + ": no class folders (expected root/<class>/<image>)");
  }
  // Class names sort by their bytes, as Python's sorted() does on str of ASCII names.
  std::sort(class_dirs.begin(), class_dirs.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  std::vector<std::pair<std::string, std::vector<fs::path>>> dirs;
  std::vector<fs::path> ignored;
  std::vector<std::string> empty_classes;
  for (std::size_t label = 0; label < class_dirs.size(); ++label) {
    dataset.classes_.push_back(class_dirs[label].filename().string());
    dirs.clear();
    collect(class_dirs[label], dirs, ignored);
    std::sort(dirs.begin(), dirs.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::size_t before = dataset.samples_.size();
    for (auto& [directory, images] : dirs) {
      for (fs::path& image : images) {
        const std::uint64_t size = fs::file_size(image, error);
        if (error) throw Error(image.string() + ": cannot stat: " + error.message());
        dataset.samples_.push_back({static_cast<std::uint32_t>(dataset.files_.size()), 0, size,
                                    static_cast<std::int32_t>(label)});
        dataset.files_.push_back(std::move(image));
      }
    }
    if (dataset.samples_.size() == before) empty_classes.push_back(dataset.classes_.back());
  }
  std::sort(ignored.begin(), ignored.end());
  for (const fs::path& file : ignored) ignore(dataset, file.string());
  if (!empty_classes.empty() && !allow_empty_classes) {
    std::string names;
    for (const std::string& name : empty_classes) names += (names.empty() ? "" : ", ") + name;
    throw Error(root.string() + ": found no valid file for the classes " + names +
                " (supported extensions: .jpg .jpeg .png .ppm .bmp .pgm .tif .tiff .webp, any "
                "case; allow it with allow_empty_classes)");
  }
}

}  // namespace feedrate
