#include "loader/dataset/annotations/voc.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <pugixml.hpp>
#include <sstream>

#include "feedrate/error.h"

namespace feedrate::annotations {

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> annotation_files(const fs::path& root, const VocOptions& options) {
  const fs::path folder = root / "Annotations";
  std::vector<fs::path> files;
  if (!options.image_set.empty()) {
    const fs::path list =
        options.image_set.is_absolute() ? options.image_set : root / options.image_set;
    std::ifstream in(list);
    if (!in) throw Error(list.string() + ": cannot open image set");
    std::string line;
    while (std::getline(in, line)) {
      // The id is a line's first word (a class's set, "2008_000008 -1", adds a second).
      std::istringstream words(line);
      std::string id;
      if (words >> id) files.push_back(folder / (id + ".xml"));
    }
    return files;
  }
  std::error_code error;
  for (auto it = fs::directory_iterator(folder, error); !error && it != fs::directory_iterator();
       it.increment(error)) {
    if (it->path().extension() == ".xml") files.push_back(it->path());
  }
  if (error) throw Error(folder.string() + ": cannot list: " + error.message());
  std::sort(files.begin(), files.end());
  return files;
}

double number(const pugi::xml_node& parent, const char* name, const std::string& where) {
  const pugi::xml_node node = parent.child(name);
  if (!node) throw Error(where + ": no <" + name + ">");
  const std::string text = node.text().as_string();
  // The number alone, with white space around it allowed (an indented element's text).
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  const std::size_t end = text.find_last_not_of(" \t\r\n") + 1;
  double value = 0;
  const char* last = text.data() + end;
  const auto parsed = begin == std::string::npos
                          ? std::from_chars_result{text.data(), std::errc::invalid_argument}
                          : std::from_chars(text.data() + begin, last, value);
  if (parsed.ec != std::errc() || parsed.ptr != last) {
    throw Error(where + ": <" + name + "> '" + text + "' is not a number");
  }
  return value;
}

// One Annotations/*.xml: its image and objects appended to `table` (the names to `names`, each
// resolved to a label once every class is known). Throws feedrate::Error naming the file.
void read_file(const fs::path& file, AnnotationTable& table, std::vector<std::string>& names) {
  const std::string where = file.string();
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_file(file.c_str());
  if (!parsed) {
    throw Error(where + ": " + parsed.description() + " at byte " + std::to_string(parsed.offset));
  }
  const pugi::xml_node annotation = doc.child("annotation");
  if (!annotation) throw Error(where + ": no <annotation> element");
  ImageRecord record;
  record.image_id = static_cast<std::int64_t>(table.images.size());
  const std::string filename = annotation.child("filename").text().as_string();
  if (filename.empty()) throw Error(where + ": no <filename>");
  record.file_name = "JPEGImages/" + filename;
  const pugi::xml_node size = annotation.child("size");
  if (size) {
    record.width = static_cast<std::int32_t>(number(size, "width", where));
    record.height = static_cast<std::int32_t>(number(size, "height", where));
  }
  record.first = static_cast<std::uint32_t>(table.flags.size());
  for (const pugi::xml_node object : annotation.children("object")) {
    const std::string name = object.child("name").text().as_string();
    if (name.empty()) throw Error(where + ": an <object> without <name>");
    const pugi::xml_node box = object.child("bndbox");
    if (!box) throw Error(where + ": object '" + name + "' has no <bndbox>");
    const double xmin = number(box, "xmin", where), ymin = number(box, "ymin", where);
    const double xmax = number(box, "xmax", where), ymax = number(box, "ymax", where);
    if (xmax < xmin || ymax < ymin) {
      throw Error(where + ": object '" + name + "' has xmax < xmin or ymax < ymin");
    }
    table.boxes.insert(table.boxes.end(),
                       {static_cast<float>(xmin - 1), static_cast<float>(ymin - 1),
                        static_cast<float>(xmax), static_cast<float>(ymax)});
    table.flags.push_back(object.child("difficult").text().as_int() != 0 ? kDifficult : 0);
    names.push_back(name);
  }
  record.count = static_cast<std::uint32_t>(table.flags.size()) - record.first;
  table.images.push_back(std::move(record));
}

}  // namespace

AnnotationTable read_voc(const fs::path& root, const VocOptions& options) {
  if (options.label_mode == LabelMode::kCategoryId) {
    throw Error(root.string() + ": VOC classes have no ids; use zero_based or contiguous labels");
  }
  AnnotationTable table;
  std::vector<std::string> names;  // per annotation, resolved once every class is known
  for (const fs::path& file : annotation_files(root, options)) {
    const std::size_t first = table.flags.size();
    try {
      read_file(file, table, names);
    } catch (const Error& e) {
      if (!options.skip_bad) throw;
      table.boxes.resize(4 * first);
      table.flags.resize(first);
      names.resize(first);
      ImageRecord record;
      record.image_id = static_cast<std::int64_t>(table.images.size());
      record.file_name = "JPEGImages/" + file.stem().string() + ".jpg";
      record.first = static_cast<std::uint32_t>(first);
      record.problem = e.what();
      table.images.push_back(std::move(record));
    }
  }
  std::vector<std::string> classes = options.classes;
  if (classes.empty()) {
    classes = names;
    std::sort(classes.begin(), classes.end());
    classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  }
  std::map<std::string, std::int64_t> label;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const std::int64_t value = label_of(options.label_mode, i, static_cast<std::int64_t>(i));
    if (!label.emplace(classes[i], value).second) {
      throw Error(root.string() + ": class '" + classes[i] + "' is listed twice");
    }
    table.categories.push_back({value, static_cast<std::int64_t>(i), classes[i]});
  }
  for (const std::string& name : names) {
    const auto found = label.find(name);
    if (found == label.end()) {
      throw Error(root.string() + ": class '" + name + "' is not in the given class list");
    }
    table.labels.push_back(found->second);
  }
  return table;
}

}  // namespace feedrate::annotations
