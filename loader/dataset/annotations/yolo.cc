#include "loader/dataset/annotations/yolo.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "feedrate/dataset.h"
#include "feedrate/error.h"

namespace feedrate::annotations {

namespace {

namespace fs = std::filesystem;

// data.yaml's names: id -> name.
std::map<std::int64_t, std::string> read_names(const fs::path& data_yaml) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(data_yaml.string());
  } catch (const YAML::Exception& e) {
    throw Error(data_yaml.string() + ": " + e.what());
  }
  const YAML::Node names = root["names"];
  std::map<std::int64_t, std::string> out;
  try {
    if (names.IsSequence()) {
      for (std::size_t i = 0; i < names.size(); ++i)
        out[static_cast<std::int64_t>(i)] = names[i].as<std::string>();
    } else if (names.IsMap()) {
      for (const auto& entry : names)
        out[entry.first.as<std::int64_t>()] = entry.second.as<std::string>();
    } else {
      throw Error(data_yaml.string() + ": no `names` list or map of id: name");
    }
  } catch (const YAML::Exception& e) {
    throw Error(data_yaml.string() + ": names: " + e.what());
  }
  if (out.empty()) throw Error(data_yaml.string() + ": `names` is empty");
  return out;
}

// Ultralytics' img2label_paths for one image.
fs::path label_path(const fs::path& image) {
  std::string path = image.string();
  const std::string images = "/images/";
  const std::size_t at = path.rfind(images);
  if (at != std::string::npos) path.replace(at, images.size(), "/labels/");
  return fs::path(path).replace_extension(".txt");
}

std::vector<std::vector<double>> read_rows(const fs::path& file) {
  std::vector<std::vector<double>> rows;
  std::ifstream in(file);
  if (!in) return rows;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::vector<double> row;
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      double value = 0;
      const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
      if (ec != std::errc() || end != word.data() + word.size()) {
        throw Error(file.string() + ":" + std::to_string(number) + ": '" + word +
                    "' is not a number");
      }
      row.push_back(value);
    }
    if (!row.empty()) rows.push_back(std::move(row));
  }
  if (in.bad()) throw Error(file.string() + ": read error");
  return rows;
}

// One line's normalized XYXY box, float32 as Ultralytics computes it.
void append_box(const std::vector<float>& v, bool segment, AnnotationTable& table) {
  float cx, cy, w, h;
  if (segment) {
    // segments2boxes: the extent, then xyxy2xywh.
    float x1 = v[1], y1 = v[2], x2 = v[1], y2 = v[2];
    for (std::size_t i = 1; i + 1 < v.size(); i += 2) {
      x1 = std::min(x1, v[i]);
      x2 = std::max(x2, v[i]);
      y1 = std::min(y1, v[i + 1]);
      y2 = std::max(y2, v[i + 1]);
    }
    cx = (x1 + x2) / 2;
    cy = (y1 + y2) / 2;
    w = x2 - x1;
    h = y2 - y1;
  } else {
    cx = v[1], cy = v[2], w = v[3], h = v[4];
  }
  const float dw = w / 2, dh = h / 2;
  table.boxes.insert(table.boxes.end(), {cx - dw, cy - dh, cx + dw, cy + dh});
}

void read_labels(const fs::path& file, const std::map<std::int64_t, std::int64_t>& label_of_class,
                 AnnotationTable& table) {
  const std::vector<std::vector<double>> rows = read_rows(file);
  const bool segment =
      std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.size() > 6; });
  std::set<std::vector<float>> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string where = file.string() + ":" + std::to_string(i + 1) + ": ";
    std::vector<float> v(rows[i].begin(), rows[i].end());
    if (segment ? (v.size() < 3 || v.size() % 2 == 0) : v.size() != 5) {
      throw Error(where + (segment ? "a segment line needs a class and x y pairs"
                                   : "expected 'class cx cy w h'"));
    }
    if (std::any_of(v.begin() + 1, v.end(), [](float x) { return !(x >= 0 && x <= 1); })) {
      throw Error(where + "coordinates must be normalized to [0, 1]");
    }
    const auto label = label_of_class.find(static_cast<std::int64_t>(v[0]));
    if (v[0] != static_cast<float>(static_cast<std::int64_t>(v[0])) ||
        label == label_of_class.end()) {
      std::ostringstream value;
      value << rows[i][0];
      throw Error(where + "class " + value.str() + " is not an id of data.yaml's names");
    }
    if (!seen.insert(v).second) continue;
    append_box(v, segment, table);
    table.labels.push_back(label->second);
    table.flags.push_back(0);
    if (segment) {
      table.segments.push_back(
          {SegmentKind::kPolygons, static_cast<std::uint32_t>(table.polygons.size()), 1, 0, 0});
      table.polygons.push_back({static_cast<std::uint32_t>(table.points.size()),
                                static_cast<std::uint32_t>(v.size() - 1)});
      table.points.insert(table.points.end(), v.begin() + 1, v.end());
    } else {
      table.segments.push_back({});
    }
  }
}

}  // namespace

AnnotationTable read_yolo(const fs::path& images, const fs::path& data_yaml,
                          const YoloOptions& options) {
  AnnotationTable table;
  table.boxes_normalized = true;
  std::map<std::int64_t, std::int64_t> label_of_class;
  std::size_t index = 0;
  for (const auto& [id, name] : read_names(data_yaml)) {
    const std::int64_t label = label_of(options.label_mode, index, id);
    table.categories.push_back({label, id, name});
    label_of_class[id] = label;
    ++index;
  }
  table.images = list_images(images);
  for (ImageRecord& record : table.images) {
    record.first = static_cast<std::uint32_t>(table.labels.size());
    const std::size_t polygons = table.polygons.size(), points = table.points.size();
    try {
      read_labels(label_path(images / record.file_name), label_of_class, table);
    } catch (const Error& e) {
      if (!options.skip_bad) throw;
      record.problem = e.what();
      table.boxes.resize(4 * std::size_t{record.first});
      table.labels.resize(record.first);
      table.flags.resize(record.first);
      table.segments.resize(std::min<std::size_t>(table.segments.size(), record.first));
      table.polygons.resize(polygons);
      table.points.resize(points);
    }
    record.count = static_cast<std::uint32_t>(table.labels.size()) - record.first;
  }
  // A table without a segment line has no segmentation at all.
  if (table.polygons.empty()) table.segments.clear();
  return table;
}

}  // namespace feedrate::annotations
