#include "loader/dataset/annotations/coco.h"

#include <simdjson.h>

#include <algorithm>
#include <string>
#include <unordered_map>

#include "decode/mask_raster.h"
#include "feedrate/error.h"

namespace feedrate::annotations {

namespace {

namespace od = simdjson::ondemand;

// What the pass collects before images and categories are known (COCO lists them in any order).
struct Raw {
  AnnotationTable table;
  std::vector<std::int64_t> image_ids;     // per annotation, the source's image_id
  std::vector<std::int64_t> category_ids;  // per annotation, the source's category_id
  std::vector<std::int64_t> annotation_ids;
  std::vector<std::string> problems;  // per annotation under skip_bad: empty, or what is wrong
  bool skip_bad = false;
};

void read_images(od::array images, AnnotationTable& table) {
  for (od::object image : images) {
    ImageRecord record;
    bool has_id = false;
    for (od::field field : image) {
      const std::string_view key = field.unescaped_key();
      if (key == "id") {
        record.image_id = field.value().get_int64();
        has_id = true;
      } else if (key == "file_name") {
        record.file_name = std::string(std::string_view(field.value().get_string()));
      } else if (key == "width") {
        record.width = static_cast<std::int32_t>(field.value().get_int64());
      } else if (key == "height") {
        record.height = static_cast<std::int32_t>(field.value().get_int64());
      }
    }
    if (!has_id) {
      throw std::runtime_error("images[" + std::to_string(table.images.size()) + "] has no id");
    }
    table.images.push_back(std::move(record));
  }
}

void read_categories(od::array categories, AnnotationTable& table) {
  for (od::object category : categories) {
    Category entry;
    bool has_id = false;
    for (od::field field : category) {
      const std::string_view key = field.unescaped_key();
      if (key == "id") {
        entry.source_id = field.value().get_int64();
        has_id = true;
      } else if (key == "name") {
        entry.name = std::string(std::string_view(field.value().get_string()));
      }
    }
    if (!has_id) {
      throw std::runtime_error("categories[" + std::to_string(table.categories.size()) +
                               "] has no id");
    }
    table.categories.push_back(std::move(entry));
  }
}

Segment read_rle(od::object rle, AnnotationTable& table, const std::string& where) {
  Segment segment;
  segment.kind = SegmentKind::kRle;
  segment.first = static_cast<std::uint32_t>(table.rle_counts.size());
  bool has_size = false;
  for (od::field field : rle) {
    const std::string_view key = field.unescaped_key();
    if (key == "size") {
      std::int64_t size[2] = {0, 0};
      int n = 0;
      for (std::int64_t v : field.value().get_array()) {
        if (n < 2) size[n] = v;
        ++n;
      }
      if (n != 2 || size[0] < 0 || size[1] < 0) {
        throw std::runtime_error(where + ": RLE size is not [height, width]");
      }
      segment.rle_height = static_cast<std::int32_t>(size[0]);
      segment.rle_width = static_cast<std::int32_t>(size[1]);
      has_size = true;
    } else if (key == "counts") {
      od::value counts = field.value();
      if (counts.type() == od::json_type::string) {
        std::vector<std::uint32_t> decoded;
        std::string error;
        if (!decode::rle_from_string(std::string_view(counts.get_string()), decoded, error)) {
          throw std::runtime_error(where + ": " + error);
        }
        table.rle_counts.insert(table.rle_counts.end(), decoded.begin(), decoded.end());
      } else {
        for (std::uint64_t v : counts.get_array()) {
          if (v > 0xffffffffULL) throw std::runtime_error(where + ": RLE count above 2^32 - 1");
          table.rle_counts.push_back(static_cast<std::uint32_t>(v));
        }
      }
    }
  }
  if (!has_size) throw std::runtime_error(where + ": RLE without size");
  segment.count = static_cast<std::uint32_t>(table.rle_counts.size() - segment.first);
  const std::uint64_t total = static_cast<std::uint64_t>(segment.rle_height) * segment.rle_width;
  std::uint64_t sum = 0;
  for (std::uint32_t i = segment.first; i < segment.first + segment.count; ++i) {
    sum += table.rle_counts[i];
  }
  if (sum > total) {
    throw std::runtime_error(where + ": RLE runs cover " + std::to_string(sum) + " pixels of a " +
                             std::to_string(segment.rle_height) + "x" +
                             std::to_string(segment.rle_width) + " image");
  }
  return segment;
}

Segment read_polygons(od::array polygons, AnnotationTable& table, const std::string& where) {
  Segment segment;
  segment.kind = SegmentKind::kPolygons;
  segment.first = static_cast<std::uint32_t>(table.polygons.size());
  for (od::array polygon : polygons) {
    PolygonRef ref;
    ref.first = static_cast<std::uint32_t>(table.points.size());
    for (double v : polygon) table.points.push_back(v);
    ref.count = static_cast<std::uint32_t>(table.points.size() - ref.first);
    if (ref.count % 2 != 0) {
      throw std::runtime_error(where + ": a polygon has an odd number of coordinates");
    }
    table.polygons.push_back(ref);
  }
  segment.count = static_cast<std::uint32_t>(table.polygons.size() - segment.first);
  return segment;
}

// `image` is the image an annotation without image_id belongs to (a shard member's), or null.
void read_annotations(od::array annotations, Raw& raw, bool segmentation,
                      const std::int64_t* image = nullptr) {
  AnnotationTable& table = raw.table;
  for (od::object annotation : annotations) {
    const std::string where = "annotations[" + std::to_string(raw.image_ids.size()) + "]";
    std::int64_t image_id = 0, category_id = 0, id = -1;
    bool has_image = false, has_category = false, has_box = false;
    double box[4] = {0, 0, 0, 0};
    std::uint8_t flags = 0;
    Segment segment;
    std::string problem;
    for (od::field field : annotation) {
      const std::string_view key = field.unescaped_key();
      if (key == "image_id") {
        image_id = field.value().get_int64();
        has_image = true;
      } else if (key == "category_id") {
        category_id = field.value().get_int64();
        has_category = true;
      } else if (key == "id") {
        id = field.value().get_int64();
      } else if (key == "iscrowd") {
        if (field.value().get_int64() != 0) flags |= kCrowd;
      } else if (key == "bbox") {
        int n = 0;
        for (double v : field.value().get_array()) {
          if (n < 4) box[n] = v;
          ++n;
        }
        if (n != 4) problem = "bbox has " + std::to_string(n) + " values, not [x, y, w, h]";
        has_box = true;
      } else if (key == "segmentation" && segmentation) {
        od::value value = field.value();
        segment = value.type() == od::json_type::object
                      ? read_rle(value.get_object(), table, where)
                      : read_polygons(value.get_array(), table, where);
      }
    }
    const std::string named = where + (id >= 0 ? " (id " + std::to_string(id) + ")" : "");
    if (!has_image && image != nullptr) {
      image_id = *image;
      has_image = true;
    }
    if (!has_image) throw std::runtime_error(named + " lacks image_id");
    if (problem.empty() && (!has_category || !has_box)) {
      problem = !has_category ? "lacks category_id" : "lacks bbox";
    }
    if (problem.empty() && (box[2] < 0 || box[3] < 0)) {
      problem = "bbox has a negative width or height";
    }
    if (!problem.empty() && !raw.skip_bad) throw std::runtime_error(named + ": " + problem);
    raw.problems.push_back(problem.empty() ? problem : named + ": " + problem);
    const float x = static_cast<float>(box[0]), y = static_cast<float>(box[1]);
    table.boxes.insert(table.boxes.end(),
                       {x, y, x + static_cast<float>(box[2]), y + static_cast<float>(box[3])});
    table.flags.push_back(flags);
    if (segmentation) table.segments.push_back(segment);
    raw.image_ids.push_back(image_id);
    raw.category_ids.push_back(category_id);
    raw.annotation_ids.push_back(id);
  }
}

void parse(const simdjson::padded_string& json, Raw& raw, bool segmentation) {
  od::parser parser;
  od::document doc;
  if (const auto error = parser.iterate(json).get(doc); error) {
    throw std::runtime_error(std::string("not a JSON document: ") + simdjson::error_message(error));
  }
  try {
    for (od::field field : doc.get_object()) {
      const std::string_view key = field.unescaped_key();
      if (key == "images") {
        read_images(field.value().get_array(), raw.table);
      } else if (key == "annotations") {
        read_annotations(field.value().get_array(), raw, segmentation);
      } else if (key == "categories") {
        read_categories(field.value().get_array(), raw.table);
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    const char* at = nullptr;
    std::string where;
    if (doc.current_location().get(at) == simdjson::SUCCESS && at >= json.data()) {
      where = " at byte " + std::to_string(at - json.data());
    }
    throw std::runtime_error(std::string("malformed JSON") + where + ": " + e.what());
  }
}

// The categories of annotations that name no list: every category_id found, its name the id.
void categories_from_ids(Raw& raw) {
  std::vector<std::int64_t> ids = raw.category_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (const std::int64_t id : ids) raw.table.categories.push_back({0, id, std::to_string(id)});
}

// One shard member's JSON: a list of annotations, or an object holding them as "annotations"
// with the image's "image_id", "width" and "height" when it states them.
void parse_member(const CocoMember& member, std::int64_t fallback_id, Raw& raw, bool segmentation) {
  const simdjson::padded_string json(member.json);
  od::parser parser;
  od::document doc;
  if (const auto error = parser.iterate(json).get(doc); error) {
    throw std::runtime_error(member.where +
                             ": not a JSON document: " + simdjson::error_message(error));
  }
  ImageRecord record;
  record.image_id = fallback_id;
  record.file_name = member.image;
  try {
    if (doc.type() == od::json_type::array) {
      read_annotations(doc.get_array(), raw, segmentation, &record.image_id);
    } else {
      for (od::field field : doc.get_object()) {
        const std::string_view key = field.unescaped_key();
        if (key == "image_id") {
          record.image_id = field.value().get_int64();
        } else if (key == "width") {
          record.width = static_cast<std::int32_t>(field.value().get_int64());
        } else if (key == "height") {
          record.height = static_cast<std::int32_t>(field.value().get_int64());
        } else if (key == "annotations") {
          read_annotations(field.value().get_array(), raw, segmentation, &record.image_id);
        }
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    throw std::runtime_error(member.where + ": malformed JSON: " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(member.where + ": " + e.what());
  }
  raw.table.images.push_back(std::move(record));
}

// Sorts the images by id, remaps categories to labels and annotations to images.
void resolve(Raw& raw, LabelMode mode) {
  AnnotationTable& table = raw.table;
  std::sort(table.images.begin(), table.images.end(),
            [](const ImageRecord& a, const ImageRecord& b) { return a.image_id < b.image_id; });
  std::unordered_map<std::int64_t, std::uint32_t> image_index;
  image_index.reserve(table.images.size());
  for (std::size_t i = 0; i < table.images.size(); ++i) {
    if (!image_index.emplace(table.images[i].image_id, static_cast<std::uint32_t>(i)).second) {
      throw std::runtime_error("image id " + std::to_string(table.images[i].image_id) +
                               " appears twice in images");
    }
  }
  std::sort(table.categories.begin(), table.categories.end(),
            [](const Category& a, const Category& b) { return a.source_id < b.source_id; });
  std::unordered_map<std::int64_t, std::int64_t> label;
  for (std::size_t i = 0; i < table.categories.size(); ++i) {
    Category& category = table.categories[i];
    category.label = label_of(mode, i, category.source_id);
    if (!label.emplace(category.source_id, category.label).second) {
      throw std::runtime_error("category id " + std::to_string(category.source_id) +
                               " appears twice in categories");
    }
  }
  std::vector<std::uint32_t> image_of(raw.image_ids.size());
  table.labels.resize(raw.image_ids.size());
  for (std::size_t a = 0; a < raw.image_ids.size(); ++a) {
    const std::string named = "annotation id " + std::to_string(raw.annotation_ids[a]);
    const auto image = image_index.find(raw.image_ids[a]);
    if (image == image_index.end()) {
      throw std::runtime_error(named + " refers to image_id " + std::to_string(raw.image_ids[a]) +
                               ", which is not in images");
    }
    const auto category = label.find(raw.category_ids[a]);
    std::string problem = raw.problems[a];
    if (problem.empty() && category == label.end()) {
      problem =
          named + " has category_id " + std::to_string(raw.category_ids[a]) + ", not in categories";
      if (!raw.skip_bad) throw std::runtime_error(problem);
    }
    ImageRecord& record = table.images[image->second];
    if (!problem.empty() && record.problem.empty()) record.problem = problem;
    image_of[a] = image->second;
    table.labels[a] = category == label.end() ? 0 : category->second;
  }
  group_by_image(table, image_of);
}

}  // namespace

AnnotationTable read_coco_members(std::span<const CocoMember> members, const CocoOptions& options) {
  Raw raw;
  raw.skip_bad = options.skip_bad;
  for (std::size_t i = 0; i < members.size(); ++i) {
    parse_member(members[i], static_cast<std::int64_t>(i), raw, options.segmentation);
  }
  categories_from_ids(raw);
  try {
    resolve(raw, options.label_mode);
  } catch (const std::runtime_error& e) {
    throw Error(std::string("KEY.json annotations: ") + e.what());
  }
  return std::move(raw.table);
}

AnnotationTable read_coco(const std::filesystem::path& json, const CocoOptions& options) {
  simdjson::padded_string text;
  if (const auto error = simdjson::padded_string::load(json.string()).get(text); error) {
    throw Error(json.string() + ": cannot read: " + simdjson::error_message(error));
  }
  Raw raw;
  raw.skip_bad = options.skip_bad;
  try {
    parse(text, raw, options.segmentation);
    resolve(raw, options.label_mode);
  } catch (const std::runtime_error& e) {
    throw Error(json.string() + ": " + e.what());
  }
  return std::move(raw.table);
}

}  // namespace feedrate::annotations
