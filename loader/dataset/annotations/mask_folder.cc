#include "loader/dataset/annotations/mask_folder.h"

#include "feedrate/dataset.h"
#include "feedrate/error.h"

namespace feedrate::annotations {

namespace fs = std::filesystem;

std::unordered_map<std::string, fs::path> index_masks(const fs::path& folder) {
  std::unordered_map<std::string, fs::path> masks;
  std::error_code error;
  for (auto it = fs::directory_iterator(folder, error); !error && it != fs::directory_iterator();
       it.increment(error)) {
    if (!it->is_regular_file() || !is_image_name(it->path().filename().string())) continue;
    const auto [at, added] = masks.emplace(it->path().stem().string(), it->path());
    if (!added) {
      throw Error(folder.string() + ": two masks for '" + at->first + "': " +
                  at->second.filename().string() + " and " + it->path().filename().string());
    }
  }
  if (error) throw Error(folder.string() + ": cannot list masks: " + error.message());
  return masks;
}

std::vector<fs::path> match_masks(const std::unordered_map<std::string, fs::path>& masks,
                                  const AnnotationTable& table, bool required) {
  std::vector<fs::path> matched;
  matched.reserve(table.images.size());
  for (const ImageRecord& image : table.images) {
    const auto found = masks.find(fs::path(image.file_name).stem().string());
    if (found == masks.end()) {
      if (required) throw Error(image.file_name + ": no mask of that stem");
      matched.emplace_back();
    } else {
      matched.push_back(found->second);
    }
  }
  return matched;
}

}  // namespace feedrate::annotations
