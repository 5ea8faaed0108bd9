// Manifests: a JSON Lines or CSV file whose rows name an image and hold the columns that the
// member fields name (docs/image-text.md, "Manifests"). The columns' values are in no image
// file, so the index keeps them (Dataset::field_value) and a sample's range is its image file.
// The images are all local files (relative to the manifest's folder, or absolute) or all URLs
// (s3://, https://): then the dataset is remote, read by ranged GETs as a remote folder is.
#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include "feedrate/error.h"
#include "io/remote/url.h"
#include "loader/dataset/csv_reader.h"
#include "loader/dataset/dataset_builders.h"
#include "loader/dataset/remote_objects.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

// The image column when the image option names none: the first of these a row has.
constexpr std::string_view kImageColumns[] = {"image", "path", "file", "filepath", "url"};

// A row's cells by column name: a JSON object (JSON Lines) or CSV cells under the header.
class Cells {
 public:
  explicit Cells(const nlohmann::json& object) : object_(&object) {}
  Cells(const std::vector<std::string>& header, const std::vector<std::string>& cells)
      : header_(&header), cells_(&cells) {}

  // The value of `column`; nullopt where the row lacks it (no such key, JSON null, an empty
  // CSV cell). A JSON string gives its text, another JSON value its JSON text, as does any
  // value when `as_json` (a json field's value stays the JSON value it is). A CSV cell gives
  // its text.
  std::optional<std::string> get(std::string_view column, bool as_json) const {
    if (object_ != nullptr) {
      const auto it = object_->find(column);
      if (it == object_->end() || it->is_null()) return std::nullopt;
      if (it->is_string() && !as_json) return it->get<std::string>();
      return it->dump();
    }
    for (std::size_t c = 0; c < header_->size(); ++c) {
      if ((*header_)[c] == column) {
        if ((*cells_)[c].empty()) return std::nullopt;
        return (*cells_)[c];
      }
    }
    return std::nullopt;
  }

  // True when the row has the column, with a value or not (a key of the object, a name in the
  // CSV header).
  bool has(std::string_view column) const {
    if (object_ != nullptr) return object_->contains(column);
    return std::find(header_->begin(), header_->end(), column) != header_->end();
  }

  // The columns that hold a value, for messages: "image, caption".
  std::string columns() const {
    std::string text;
    const auto add = [&](const std::string& name) {
      if (get(name, true)) text += (text.empty() ? "" : ", ") + name;
    };
    if (object_ != nullptr) {
      for (const auto& item : object_->items()) add(item.key());
    } else {
      for (const std::string& name : *header_) add(name);
    }
    return text.empty() ? "no column" : text;
  }

 private:
  const nlohmann::json* object_ = nullptr;
  const std::vector<std::string>* header_ = nullptr;
  const std::vector<std::string>* cells_ = nullptr;
};

// The columns a field reads, the first one a row has: cls is the column cls or label.
std::vector<std::string> columns_of(const FieldSpec& field) {
  if (field.kind == FieldKind::kClass) return {"cls", "label"};
  return field.alternatives;
}

std::string names_of(const std::vector<std::string>& columns) {
  std::string text;
  for (const std::string& name : columns) text += (text.empty() ? "'" : " or '") + name + "'";
  return text;
}

// An integer written as a float ("3.0", what pandas writes for an integer column that holds a
// missing value): its integer digits; any other text as it is.
std::string_view integral(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size() ||
      text.find_first_not_of('0', dot + 1) != std::string_view::npos) {
    return text;
  }
  return text.substr(0, dot);
}

std::optional<std::int32_t> label_of(std::string_view text) {
  text = integral(text);
  std::int32_t label = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), label);
  if (error != std::errc() || end != text.data() + text.size() || label < 0 || label > kMaxLabel) {
    return std::nullopt;
  }
  return label;
}

}  // namespace

void Dataset::Builder::manifest(Dataset& dataset, const fs::path& manifest, bool allow_outside) {
  const SampleSpec& spec = dataset.spec();
  const std::string name = manifest.string();
  if (!spec.image.empty()) {
    throw Error(name + ": option image names image extensions, which only tar shards have; " +
                "for a manifest it names the image column (\"url\")");
  }
  std::ifstream in(manifest, std::ios::binary);
  if (!in) throw Error(name + ": cannot open manifest");
  const fs::path root = manifest.parent_path();
  std::string image_column = spec.image_column;
  std::set<std::int32_t> labels;
  dataset.keys_with_field_.assign(spec.fields.size(), 0);
  if (dataset.member_fields_ > 0) dataset.value_at_.assign(1, 0);
  std::vector<std::string> values;
  RemoteObjects objects;  // the images at URLs
  const bool labelled = std::any_of(spec.fields.begin(), spec.fields.end(),
                                    [](const FieldSpec& f) { return f.kind == FieldKind::kClass; });

  // Makes the sample of one row, or leaves it out (listed) under on_missing / on_bad.
  const auto add = [&](const Cells& row, std::size_t line) {
    const std::string where = name + ":" + std::to_string(line);
    if (dataset.first_key_.empty()) dataset.first_key_ = where + " holds " + row.columns();
    const auto left_out = [&](BadInputPolicy policy, const std::string& what) {
      const std::string reason = what + "; the row holds " + row.columns();
      if (policy == BadInputPolicy::kError) throw Error(where + ": " + reason);
      skip(dataset, where, reason);
    };
    if (image_column.empty()) {
      for (std::string_view column : kImageColumns) {
        if (row.has(column)) {
          image_column = column;
          break;
        }
      }
      if (image_column.empty()) {
        throw Error(where +
                    ": no image column (image, path, file, filepath or url; name it with "
                    "option image); the row holds " +
                    row.columns());
      }
    }
    for (std::size_t f = 0; f < spec.fields.size(); ++f) {
      for (const std::string& column : columns_of(spec.fields[f])) {
        if (row.get(column, true)) {
          ++dataset.keys_with_field_[f];
          break;
        }
      }
    }
    const std::optional<std::string> image = row.get(image_column, false);
    if (!image) return left_out(spec.on_missing, "no image (column '" + image_column + "')");
    const bool url = io::is_url(*image);
    if (dataset.samples_.empty() && dataset.skipped_ == 0) dataset.remote_ = url;
    if (url != dataset.remote_) {
      throw Error(where + ": image '" + *image + "' is " +
                  (url ? "a URL where the rows before name local files"
                       : "a local file where the rows before name URLs") +
                  ": a manifest's images are all local or all at URLs");
    }
    const fs::path relative(url ? fs::path() : fs::path(*image));
    if (!url && !allow_outside && escapes_root(relative)) {
      throw Error(where + ": path '" + *image +
                  "' is outside the manifest's folder (allow it with allow_paths_outside_root)");
    }
    std::int32_t label = 0;
    values.clear();
    for (const FieldSpec& field : spec.fields) {
      if (field.kind == FieldKind::kKey) continue;
      const std::vector<std::string> columns = columns_of(field);
      std::optional<std::string> value;
      for (std::size_t c = 0; c < columns.size() && !value; ++c) {
        value = row.get(columns[c], field.kind == FieldKind::kJson);
      }
      if (!value) {
        return left_out(spec.on_missing,
                        "no column " + names_of(columns) + " (field '" + field.entry + "')");
      }
      if (field.kind == FieldKind::kInteger) {
        values.emplace_back(integral(*value));
        continue;
      }
      if (field.kind != FieldKind::kClass) {
        values.push_back(std::move(*value));
        continue;
      }
      const std::optional<std::int32_t> parsed = label_of(*value);
      if (!parsed) {
        return left_out(spec.on_bad, "label '" + *value + "' is not an integer in [0, " +
                                         std::to_string(kMaxLabel) + "]");
      }
      label = *parsed;
    }
    fs::path path = url ? fs::path(*image) : relative.is_absolute() ? relative : root / relative;
    std::uint64_t size = 0;
    if (url) {
      // An s3:// image from one listing of its folder, an https:// one from a HEAD.
      std::string problem;
      const std::optional<io::ObjectInfo> object = objects.find(*image, problem);
      if (!object) return left_out(spec.on_missing, problem);
      size = object->size;
      dataset.etags_.push_back(object->etag);
      dataset.file_bytes_.push_back(size);
    } else {
      std::error_code error;
      size = fs::file_size(path, error);
      if (error) {
        return left_out(spec.on_missing, path.string() + ": cannot stat: " + error.message());
      }
    }
    dataset.samples_.push_back({static_cast<std::uint32_t>(dataset.files_.size()), 0, size, label});
    dataset.files_.push_back(std::move(path));
    dataset.rows_.push_back({*image, line});
    for (const std::string& value : values) {
      dataset.values_ += value;
      dataset.value_at_.push_back(dataset.values_.size());
    }
    if (labelled) labels.insert(label);  // without a cls field, the dataset has no classes
  };

  if (manifest.extension() == ".csv") {
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw Error(name + ": read error");
    CsvReader reader(text, name);
    std::vector<std::string> header, cells;
    if (!reader.next(header)) throw Error(name + ": no header row (the columns' names)");
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (std::find(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(c), header[c]) !=
          header.begin() + static_cast<std::ptrdiff_t>(c)) {
        throw Error(name + ":1: the header names column '" + header[c] + "' twice");
      }
    }
    while (reader.next(cells)) {
      if (cells.size() != header.size()) {
        const std::string reason = std::to_string(cells.size()) + " cells where the header names " +
                                   std::to_string(header.size()) + " columns";
        const std::string where = name + ":" + std::to_string(reader.line());
        if (spec.on_bad == BadInputPolicy::kError) throw Error(where + ": " + reason);
        skip(dataset, where, reason);
        continue;
      }
      add(Cells(header, cells), reader.line());
    }
  } else {
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      const nlohmann::json object = nlohmann::json::parse(line, nullptr, false);
      if (object.is_discarded() || !object.is_object()) {
        const std::string where = name + ":" + std::to_string(number);
        const std::string reason = object.is_discarded() ? "not JSON" : "not a JSON object";
        if (spec.on_bad == BadInputPolicy::kError) throw Error(where + ": " + reason);
        skip(dataset, where, reason);
        continue;
      }
      add(Cells(object), number);
    }
    if (in.bad()) throw Error(name + ": read error");
  }
  label_classes(dataset, labels);
}

}  // namespace feedrate
