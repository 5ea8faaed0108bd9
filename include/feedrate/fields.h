// What a sample delivers besides its image (LoaderOptions::fields, docs/image-text.md): named
// fields, each a member of the sample's tar key with that extension (KEY.txt is field "txt"),
// decoded by its kind. A field may list alternatives ("txt;caption": the first one a sample has).
// Folders and file lists give "cls" and "__key__" only.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "feedrate/export.h"

namespace feedrate {

enum class FieldKind {
  kClass,    // "cls": the class label, read into the index (Batch::labels())
  kInteger,  // "cls2", "index": a decimal integer member
  kText,     // "txt", "text", "caption": UTF-8 text
  kJson,     // "json": one JSON value
  kKey,      // "__key__": the tar key, or a folder's or list's path relative to its root
  kNpy,      // "npy": a NumPy .npy array
  kBytes,    // any other extension: the member's bytes as they are
};

// Where a member lies inside its sample's bytes.
struct ByteSpan {
  std::uint32_t at = 0;
  std::uint32_t size = 0;
};

struct FieldSpec {
  std::string entry;                      // as given: "txt;caption"
  std::vector<std::string> alternatives;  // "txt", "caption": the first one a sample has
  FieldKind kind = FieldKind::kBytes;
};

// The kind of a member with `extension` (lower case, no dot; "__key__" too).
FEEDRATE_API FieldKind field_kind(std::string_view extension);
FEEDRATE_API const char* field_kind_name(FieldKind kind);
// True for the kinds read from a member's bytes when the sample is read (not cls, not __key__).
constexpr bool reads_member(FieldKind kind) {
  return kind != FieldKind::kClass && kind != FieldKind::kKey;
}

// Parses LoaderOptions::fields. Throws feedrate::Error naming the entry: an empty entry or
// alternative, alternatives of different kinds, cls or __key__ among alternatives, an entry
// given twice.
FEEDRATE_API std::vector<FieldSpec> parse_fields(const std::vector<std::string>& entries);
// LoaderOptions::image names either the image members' extensions of tar shards ("jpg;png") or,
// when it is one name that is no image extension ("url"), a manifest's image column: that name,
// else an empty string.
FEEDRATE_API std::string image_column_of(std::string_view text);
// Parses LoaderOptions::image ("jpg;png"): image extensions, lower case, in order of preference.
// Empty: every image extension, or a column (image_column_of). Throws feedrate::Error naming one
// that is no image's in a list of several.
FEEDRATE_API std::vector<std::string> parse_image_members(std::string_view text);

}  // namespace feedrate
