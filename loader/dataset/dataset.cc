#include "feedrate/dataset.h"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <system_error>

#include "feedrate/error.h"
#include "io/page_cache.h"
#include "io/remote/brace_pattern.h"
#include "io/remote/url.h"
#include "loader/dataset/annotations/annotation_table.h"
#include "loader/dataset/dataset_builders.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

bool is_tar(const fs::path& path) {
  return path.extension() == ".tar";
}

bool is_manifest(std::string_view name) {
  return name.ends_with(".jsonl") || name.ends_with(".csv");
}

std::vector<fs::path> expand_glob(const std::string& pattern) {
  glob_t matches{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &matches);
  std::vector<fs::path> paths;
  if (rc == 0) {
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
  }
  ::globfree(&matches);
  if (paths.empty()) throw Error(pattern + ": no file matches this pattern");
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The shards a brace pattern names ("shards/{00000..00099}.tar"), in its order; each must exist.
std::vector<fs::path> expand_brace_shards(const std::string& pattern) {
  std::vector<std::string> names;
  try {
    names = io::expand_braces(pattern);
  } catch (const std::invalid_argument& e) {
    throw Error(e.what());
  }
  std::vector<fs::path> paths(names.begin(), names.end());
  std::error_code error;
  for (const fs::path& path : paths) {
    if (!fs::is_regular_file(path, error)) {
      throw Error(path.string() + ": no such file (a shard the pattern " + pattern + " names)");
    }
  }
  return paths;
}

std::vector<fs::path> tars_in(const fs::path& directory) {
  std::vector<fs::path> shards;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (is_tar(entry.path()) && entry.is_regular_file()) shards.push_back(entry.path());
  }
  std::sort(shards.begin(), shards.end());
  return shards;
}

}  // namespace

const char* format_name(DatasetFormat format) {
  switch (format) {
    case DatasetFormat::kImageFolder:
      return "image-folder";
    case DatasetFormat::kFileList:
      return "file-list";
    case DatasetFormat::kTarShards:
      return "tar-shards";
    case DatasetFormat::kManifest:
      return "manifest";
    case DatasetFormat::kDetection:
      return "detection";
  }
  return "unknown";
}

SampleSpec SampleSpec::of(const LoaderOptions& options) {
  SampleSpec spec;
  spec.image = parse_image_members(options.image);
  spec.image_column = image_column_of(options.image);
  spec.fields = parse_fields(options.fields);
  spec.on_missing = options.on_missing;
  spec.on_bad = options.on_bad;
  spec.annotations = options.annotations;
  spec.labels = options.labels;
  spec.masks = options.masks;
  return spec;
}

Dataset Dataset::open(const fs::path& source, bool allow_paths_outside_root,
                      bool allow_empty_classes, const SampleSpec& spec) {
  Dataset dataset;
  dataset.spec_ = spec;
  dataset.member_fields_ = static_cast<std::size_t>(
      std::count_if(spec.fields.begin(), spec.fields.end(),
                    [](const FieldSpec& field) { return reads_member(field.kind); }));
  const std::string text = source.string();
  dataset.root_ = source;
  std::error_code error;
  const bool in_shards = spec.annotations == kAnnotationsInShards;
  if ((!spec.annotations.empty() || !spec.masks.empty()) && !in_shards) {
    dataset.format_ = DatasetFormat::kDetection;
    if (io::is_url(text)) {
      dataset.remote_ = true;
      Builder::remote_detection(dataset, text);
    } else if (io::is_url(spec.annotations.string()) || io::is_url(spec.masks)) {
      throw Error((io::is_url(spec.masks) ? spec.masks : spec.annotations.string()) +
                  ": remote annotations go with remote images (an s3:// or https:// source)");
    } else {
      Builder::detection(dataset, source);
    }
  } else if (io::is_url(text)) {
    if (is_manifest(text)) {
      throw Error(text +
                  ": a manifest at a URL is not read yet: copy it to a local file (its "
                  "rows may name local images)");
    }
    dataset.remote_ = true;
    Builder::remote(dataset, text, allow_empty_classes);
  } else if (text.find_first_of("*?[") != std::string::npos && !fs::exists(source, error)) {
    dataset.format_ = DatasetFormat::kTarShards;
    Builder::tar_shards(dataset, expand_glob(text));
  } else if (io::has_brace_pattern(text) && !fs::exists(source, error)) {
    dataset.format_ = DatasetFormat::kTarShards;
    Builder::tar_shards(dataset, expand_brace_shards(text));
  } else if (fs::is_directory(source, error)) {
    if (std::vector<fs::path> shards = tars_in(source); !shards.empty()) {
      dataset.format_ = DatasetFormat::kTarShards;
      Builder::tar_shards(dataset, shards);
    } else {
      dataset.format_ = DatasetFormat::kImageFolder;
      Builder::image_folder(dataset, source, allow_empty_classes);
    }
  } else if (fs::is_regular_file(source, error)) {
    if (is_tar(source)) {
      dataset.format_ = DatasetFormat::kTarShards;
      Builder::tar_shards(dataset, {source});
    } else if (is_manifest(text)) {
      dataset.format_ = DatasetFormat::kManifest;
      dataset.root_ = source.parent_path();
      dataset.manifest_ = source;
      Builder::manifest(dataset, source, allow_paths_outside_root);
    } else {
      dataset.format_ = DatasetFormat::kFileList;
      dataset.root_ = source.parent_path();
      Builder::file_list(dataset, source, allow_paths_outside_root);
    }
  } else {
    throw Error(text +
                ": no such file or directory (expected an image folder, tar shards (a folder, "
                "a glob or a brace pattern), a file list or a .jsonl/.csv manifest)");
  }
  if (!spec.image_column.empty() && dataset.format_ != DatasetFormat::kManifest) {
    throw Error("option image: '" + spec.image_column +
                "' is not an image extension (jpg jpeg png ppm bmp pgm tif tiff webp); a column "
                "name is for manifests (.jsonl, .csv) only, and " +
                text + " is " + format_name(dataset.format_));
  }
  if (in_shards) Builder::shard_annotations(dataset);
  Builder::finish(dataset, source);
  return dataset;
}

const std::string& Dataset::etag(std::uint32_t file) const {
  static const std::string kNone;
  return file < etags_.size() ? etags_[file] : kNone;
}

const std::string& Dataset::member(std::size_t index) const {
  static const std::string kNone;
  return index < members_.size() ? members_[index] : kNone;
}

std::uint64_t Dataset::file_bytes(std::uint32_t file) const {
  return file < file_bytes_.size() ? file_bytes_[file] : 0;
}

ByteSpan Dataset::image_span(std::size_t index) const {
  if (spans_.empty()) return {0, static_cast<std::uint32_t>(samples_[index].size)};
  return spans_[index * (member_fields_ + 1)];
}

std::string Dataset::key(std::size_t index) const {
  std::string key;
  append_key(index, key);
  return key;
}

void Dataset::append_key(std::size_t index, std::string& out) const {
  if (!rows_.empty()) {
    out += rows_[index].image;
    return;
  }
  if (!members_.empty()) {
    out += tar_key(members_[index]).first;
    return;
  }
  const fs::path& file = files_[samples_[index].file];
  const fs::path relative = file.lexically_relative(root_);
  out += relative.empty() || *relative.begin() == ".." ? file.string() : relative.string();
}

std::string Dataset::describe(std::size_t index) const {
  const SampleRef& ref = samples_[index];
  if (!rows_.empty()) {
    return manifest_.string() + ":" + std::to_string(rows_[index].line) + " (" +
           rows_[index].image + ")";
  }
  if (members_.empty()) return files_[ref.file].string();
  return files_[ref.file].string() + ":" + members_[index];
}

std::string Dataset::index_hash() const {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a
  const auto add = [&](const void* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      hash = (hash ^ static_cast<const unsigned char*>(data)[i]) * 0x100000001b3ull;
    }
  };
  const auto add_text = [&](const std::string& text) { add(text.c_str(), text.size() + 1); };
  for (const std::string& name : classes_) add_text(name);
  for (const std::string& extension : spec_.image) add_text(extension);
  if (!spec_.image_column.empty()) add_text(spec_.image_column);
  for (const FieldSpec& field : spec_.fields) add_text(field.entry);
  add(spans_.data(), spans_.size() * sizeof(ByteSpan));
  for (const fs::path& file : files_) add_text(file.filename().string());
  for (std::size_t i = 0; i < samples_.size(); ++i) {
    const SampleRef& ref = samples_[i];
    const std::uint64_t fields[] = {ref.file, ref.offset, ref.size,
                                    static_cast<std::uint64_t>(ref.label)};
    add(fields, sizeof(fields));
    if (!members_.empty()) add_text(members_[i]);
    if (!rows_.empty()) add_text(rows_[i].image);
  }
  add(value_at_.data(), value_at_.size() * sizeof(std::uint64_t));
  add(values_.data(), values_.size());
  if (annotations_) {
    const annotations::AnnotationTable& table = *annotations_;
    add(annotated_.data(), annotated_.size() * sizeof(std::uint32_t));
    add(table.boxes.data(), table.boxes.size() * sizeof(float));
    add(table.labels.data(), table.labels.size() * sizeof(std::int64_t));
    add(table.flags.data(), table.flags.size());
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

std::size_t Dataset::evict_from_page_cache(std::string* first_error) const {
  std::size_t failed = 0;
  if (remote_) return 0;  // a store's objects are in no page cache of this machine
  for (const fs::path& file : files_) {
    if (const std::error_code error = io::evict_from_page_cache(file)) {
      if (failed++ == 0 && first_error != nullptr) {
        *first_error = file.string() + ": " + error.message();
      }
    }
  }
  return failed;
}

std::pair<std::string_view, std::string_view> tar_key(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  const std::size_t dot = name.find('.', slash == std::string_view::npos ? 0 : slash + 1);
  if (dot == std::string_view::npos) return {name, {}};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

bool is_image_extension(std::string_view extension) {
  if (!extension.empty() && extension.front() == '.') extension.remove_prefix(1);
  // torchvision.datasets.folder.IMG_EXTENSIONS, compared case-insensitively as it does.
  static constexpr std::string_view kExtensions[] = {"jpg", "jpeg", "png",  "ppm", "bmp",
                                                     "pgm", "tif",  "tiff", "webp"};
  for (std::string_view known : kExtensions) {
    if (known.size() == extension.size() &&
        std::equal(known.begin(), known.end(), extension.begin(), [](char a, char b) {
          return a == std::tolower(static_cast<unsigned char>(b));
        })) {
      return true;
    }
  }
  return false;
}

bool is_image_name(std::string_view file_name) {
  const std::size_t dot = file_name.rfind('.');
  return dot != std::string_view::npos && is_image_extension(file_name.substr(dot));
}

void Dataset::Builder::ignore(Dataset& dataset, std::string what) {
  if (dataset.ignored_files_++ < kMaxIgnoredExamples) {
    dataset.ignored_examples_.push_back(std::move(what));
  }
}

void Dataset::Builder::skip(Dataset& dataset, std::string where, std::string reason) {
  if (dataset.skipped_++ < kMaxSkippedExamples) {
    dataset.skipped_examples_.push_back({0, std::move(where), std::move(reason)});
  }
}

void Dataset::Builder::finish(Dataset& dataset, const fs::path& source) {
  if (dataset.member_fields_ > 0 && !dataset.holds_field_values() &&
      dataset.spans_.size() != dataset.samples_.size() * (dataset.member_fields_ + 1)) {
    std::string names;
    for (const FieldSpec& field : dataset.spec_.fields) {
      if (reads_member(field.kind)) names += (names.empty() ? "'" : ", '") + field.entry + "'";
    }
    throw Error(source.string() + ": " + format_name(dataset.format_) +
                " samples hold an image, cls and __key__ only: option fields " + names +
                " cannot be read from them (tar shards hold any member, manifests any column)");
  }
  for (std::size_t f = 0; f < dataset.keys_with_field_.size(); ++f) {
    const FieldSpec& field = dataset.spec_.fields[f];
    if (dataset.keys_with_field_[f] == 0 && field.kind != FieldKind::kKey) {
      // Image-text shards (KEY.jpg, KEY.txt, KEY.json) meet the default fields=("cls",) first.
      const std::string hint = field.kind == FieldKind::kClass && field.entry == "cls"
                                   ? "; shards without classes are read with fields=(\"txt\",) "
                                     "or fields=() (--fields txt on the command line)"
                                   : "";
      throw Error("option fields: no sample of " + source.string() + " has '" + field.entry +
                  "' (the first, " + dataset.first_key_ + ")" + hint);
    }
  }
  if (dataset.samples_.empty()) {
    if (dataset.skipped_ > 0) {
      const SkippedSample& first = dataset.skipped_examples_.front();
      throw Error(source.string() + ": every sample was left out (" +
                  std::to_string(dataset.skipped_) + "); the first, " + first.where + ": " +
                  first.reason);
    }
    throw Error(source.string() + ": dataset has no samples");
  }
  if (dataset.samples_.size() > UINT32_MAX)
    throw Error(source.string() + ": dataset has more than 2^32 samples");
  dataset.total_bytes_ = 0;
  for (const SampleRef& ref : dataset.samples_) dataset.total_bytes_ += ref.size;
}

}  // namespace feedrate
