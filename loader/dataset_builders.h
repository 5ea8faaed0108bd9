// The three dataset formats. Internal to loader/: each fills a Dataset from its source and
// throws feedrate::Error naming the file and the problem.
#pragma once

#include <filesystem>
#include <vector>

#include "loader/dataset.h"

namespace feedrate {

struct Dataset::Builder {
  // root/<class>/**/<image>.jpg; classes sorted by name become labels 0..C-1 (torchvision).
  static void image_folder(Dataset& dataset, const std::filesystem::path& root);
  // Lines "relative/path label", relative to the list's folder; '#' starts a comment line.
  static void file_list(Dataset& dataset, const std::filesystem::path& list, bool allow_outside);
  // WebDataset shards: members key.jpg (or .jpeg) and key.cls (decimal label).
  static void tar_shards(Dataset& dataset, const std::vector<std::filesystem::path>& shards);
  static void finish(Dataset& dataset, const std::filesystem::path& source);
};

}  // namespace feedrate
