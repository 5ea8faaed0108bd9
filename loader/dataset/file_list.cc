#include <charconv>
#include <fstream>
#include <optional>
#include <set>
#include <system_error>

#include "feedrate/error.h"
#include "loader/dataset/dataset_builders.h"

namespace feedrate {

namespace fs = std::filesystem;

bool escapes_root(const fs::path& relative) {
  if (relative.is_absolute()) return true;
  const fs::path normal = relative.lexically_normal();
  return !normal.empty() && *normal.begin() == "..";
}

std::optional<ListLine> parse_list_line(const std::string& line, const std::string& where) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos || line[first] == '#') return std::nullopt;
  const auto last = line.find_last_not_of(" \t\r");
  const auto space = line.find_last_of(" \t", last);
  if (space == std::string::npos || space < first) {
    throw Error(where + "expected 'relative/path label'");
  }
  ListLine parsed;
  const char* begin = line.data() + space + 1;
  const char* end = line.data() + last + 1;
  const auto [ptr, ec] = std::from_chars(begin, end, parsed.label);
  if (ec != std::errc() || ptr != end || parsed.label < 0 || parsed.label > kMaxLabel) {
    throw Error(where + "label '" + std::string(begin, end) + "' is not an integer in [0, " +
                std::to_string(kMaxLabel) + "]");
  }
  const auto path_end = line.find_last_not_of(" \t", space);
  parsed.path = line.substr(first, path_end - first + 1);
  return parsed;
}

void Dataset::Builder::file_list(Dataset& dataset, const fs::path& list, bool allow_outside) {
  std::ifstream in(list);
  if (!in) throw Error(list.string() + ": cannot open file list");
  const fs::path root = list.parent_path();
  std::set<std::int32_t> labels;
  std::string line;
  std::error_code error;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string where = list.string() + ":" + std::to_string(number) + ": ";
    const std::optional<ListLine> parsed = parse_list_line(line, where);
    if (!parsed) continue;
    const std::int32_t label = parsed->label;
    const fs::path relative(parsed->path);
    if (!allow_outside && escapes_root(relative)) {
      throw Error(where + "path '" + relative.string() +
                  "' is outside the list's folder (allow it with allow_paths_outside_root)");
    }
    fs::path path = relative.is_absolute() ? relative : root / relative;
    if (!is_image_name(path.filename().string())) {
      ignore(dataset, where + path.string());
      continue;
    }
    const std::uint64_t size = fs::file_size(path, error);
    if (error) throw Error(where + path.string() + ": cannot stat: " + error.message());
    dataset.samples_.push_back({static_cast<std::uint32_t>(dataset.files_.size()), 0, size, label});
    dataset.files_.push_back(std::move(path));
    labels.insert(label);
  }
  if (in.bad()) throw Error(list.string() + ": read error");
  if (!labels.empty()) {
    for (std::int32_t label = 0; label <= *labels.rbegin(); ++label) {
      dataset.classes_.push_back(std::to_string(label));
    }
  }
}

}  // namespace feedrate
