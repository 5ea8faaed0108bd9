#include "feedrate/fields.h"

#include <algorithm>

#include "feedrate/dataset.h"
#include "feedrate/error.h"

namespace feedrate {
namespace {

// "a;b;c" split at ';', empty pieces kept so that they can be refused.
std::vector<std::string> alternatives_of(std::string_view text) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(';', start);
    pieces.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return pieces;
    start = end + 1;
  }
}

}  // namespace

FieldKind field_kind(std::string_view extension) {
  if (extension == "cls") return FieldKind::kClass;
  if (extension == "cls2" || extension == "index") return FieldKind::kInteger;
  if (extension == "txt" || extension == "text" || extension == "caption") return FieldKind::kText;
  if (extension == "json") return FieldKind::kJson;
  if (extension == "__key__") return FieldKind::kKey;
  if (extension == "npy") return FieldKind::kNpy;
  return FieldKind::kBytes;
}

const char* field_kind_name(FieldKind kind) {
  switch (kind) {
    case FieldKind::kClass:
      return "class";
    case FieldKind::kInteger:
      return "integer";
    case FieldKind::kText:
      return "text";
    case FieldKind::kJson:
      return "json";
    case FieldKind::kKey:
      return "key";
    case FieldKind::kNpy:
      return "npy";
    case FieldKind::kBytes:
      return "bytes";
  }
  return "unknown";
}

std::vector<FieldSpec> parse_fields(const std::vector<std::string>& entries) {
  std::vector<FieldSpec> fields;
  for (const std::string& entry : entries) {
    const std::string where = "option fields: '" + entry + "'";
    FieldSpec spec{entry, alternatives_of(entry), FieldKind::kBytes};
    spec.kind = field_kind(spec.alternatives.front());
    for (const std::string& alternative : spec.alternatives) {
      if (alternative.empty()) throw Error(where + " names an empty member extension");
      if (alternative.find_first_of("/ ") != std::string::npos) {
        throw Error(where + ": '" + alternative + "' is no extension (no '/' or space)");
      }
      const FieldKind kind = field_kind(alternative);
      if (spec.alternatives.size() > 1 && !reads_member(kind)) {
        throw Error(where + ": " + alternative + " cannot be an alternative; give it alone");
      }
      if (kind != spec.kind) {
        throw Error(where + ": its alternatives are of different kinds (" +
                    spec.alternatives.front() + " is " + field_kind_name(spec.kind) + ", " +
                    alternative + " is " + field_kind_name(kind) + ")");
      }
    }
    if (std::any_of(fields.begin(), fields.end(),
                    [&](const FieldSpec& other) { return other.entry == entry; })) {
      throw Error(where + " is given twice");
    }
    fields.push_back(std::move(spec));
  }
  return fields;
}

std::string image_column_of(std::string_view text) {
  if (text.empty() || text.find(';') != std::string_view::npos || is_image_extension(text)) {
    return {};
  }
  return std::string(text);
}

std::vector<std::string> parse_image_members(std::string_view text) {
  if (text.empty() || !image_column_of(text).empty()) return {};
  std::vector<std::string> extensions = alternatives_of(text);
  for (std::string& extension : extensions) {
    if (!is_image_extension(extension) || extension.front() == '.') {
      throw Error("option image: '" + extension +
                  "' is not an image extension (jpg jpeg png ppm bmp pgm tif tiff webp)");
    }
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  return extensions;
}

}  // namespace feedrate
