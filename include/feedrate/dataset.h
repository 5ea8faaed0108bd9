// The dataset index: every sample as a byte range of a file, with its label. Built once when
// a Loader starts (ImageFolder, file list, tar shards or a manifest), then read-only. A source may
// also be a URL (s3://bucket/prefix/, https://host/shard-{0000..0099}.tar): its files are then
// remote objects, named by their URLs, with the same index a local copy of the same bytes gets.
//
// Thread-safety: immutable after open(); any number of threads may read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feedrate/export.h"
#include "feedrate/fields.h"
#include "feedrate/options.h"
#include "feedrate/skipped.h"

namespace feedrate {
namespace annotations {
struct AnnotationTable;  // loader/dataset/annotations/annotation_table.h (internal)
}  // namespace annotations

enum class DatasetFormat { kImageFolder, kFileList, kTarShards, kManifest, kDetection };
FEEDRATE_API const char* format_name(DatasetFormat format);

// A sample's bytes: one range of a file that covers its image and the fields it delivers (a tar
// key's members are adjacent), read with one request.
struct SampleRef {
  std::uint32_t file = 0;    // index into Dataset::files()
  std::uint64_t offset = 0;  // of the sample's first byte in that file
  std::uint64_t size = 0;    // bytes
  std::int32_t label = 0;    // the cls field; 0 where the dataset has no labels
};

// What the index keeps of each sample (LoaderOptions::image, fields, on_missing and on_bad).
struct SampleSpec {
  std::vector<std::string> image;  // parse_image_members(); empty: any image extension
  // A manifest's image column (LoaderOptions::image when it names no image extension); empty:
  // the first of "image", "path", "file", "filepath", "url" that the manifest has.
  std::string image_column;
  std::vector<FieldSpec> fields = parse_fields({"cls"});
  BadInputPolicy on_missing = BadInputPolicy::kSkip;
  BadInputPolicy on_bad = BadInputPolicy::kError;  // a bad .cls, a member given twice
  // Detection (LoaderOptions::annotations, labels): the annotation file, read at index time.
  std::filesystem::path annotations;
  LabelMode labels = LabelMode::kCategoryId;
  std::string masks;  // LoaderOptions::masks
  // Remote tar shards read through once while the index is built (no pack index beside them):
  // called with each shard's number in files(), its URL and a file descriptor of its whole
  // bytes, valid during the call (`feedrate index` lists each archive from it). Empty: nothing
  // is called.
  std::function<void(std::uint32_t shard, const std::string& url, int fd)> streamed_shard;

  static SampleSpec of(const LoaderOptions& options);
};

class FEEDRATE_API Dataset {
 public:
  // Indexes `source` (see LoaderOptions::source), a local path or a URL. Throws feedrate::Error
  // naming the file and the problem when it cannot: a missing path, an empty dataset, a malformed
  // tar or list, an ImageFolder class without images (unless allow_empty_classes).
  // `spec` says which members make a sample: a sample missing one follows spec.on_missing, and
  // a field no sample has is an error naming it and the members the first sample holds.
  static Dataset open(const std::filesystem::path& source, bool allow_paths_outside_root = false,
                      bool allow_empty_classes = false, const SampleSpec& spec = SampleSpec{});

  const SampleSpec& spec() const { return spec_; }

  DatasetFormat format() const { return format_; }
  std::size_t size() const { return samples_.size(); }
  const SampleRef& sample(std::size_t index) const { return samples_[index]; }
  const std::vector<std::filesystem::path>& files() const { return files_; }
  // Class names in label order (ImageFolder: folder names; others: the labels as text).
  const std::vector<std::string>& classes() const { return classes_; }
  std::uint64_t total_bytes() const { return total_bytes_; }
  // A fingerprint of the index, 16 hex digits: file names (not the folders above them, so a
  // moved dataset keeps it), tar members, byte ranges, labels and class names, in order.
  std::string index_hash() const;
  // Files (tar members, file-list lines) left out at index time because their extension is
  // neither an image's (is_image_name) nor a requested field's, and the first
  // kMaxIgnoredExamples of them.
  std::size_t ignored_files() const { return ignored_files_; }
  const std::vector<std::string>& ignored_examples() const { return ignored_examples_; }
  static constexpr std::size_t kMaxIgnoredExamples = 3;
  // A tar shard's image member name of sample `index`; empty for the other formats.
  const std::string& member(std::size_t index) const;
  // Where the image lies in sample `index`'s range: all of it unless the sample reads fields.
  ByteSpan image_span(std::size_t index) const;
  // The fields of spec() read from members (reads_member), in order, and where field `k` of
  // them lies in sample `index`'s range.
  std::size_t member_fields() const { return member_fields_; }
  ByteSpan field_span(std::size_t index, std::size_t k) const {
    return spans_[index * (member_fields_ + 1) + 1 + k];
  }
  // True for a manifest: its member fields are column values the index holds, not bytes of the
  // sample's range (which is its image file); field_value() gives them, field_span() does not.
  bool holds_field_values() const { return !value_at_.empty(); }
  // Member field `k` of sample `index` as the manifest gave it (a string column's text, another
  // JSON value's JSON text); valid while the Dataset lives.
  std::string_view field_value(std::size_t index, std::size_t k) const {
    const std::size_t entry = index * member_fields_ + k;
    return std::string_view(values_).substr(value_at_[entry],
                                            value_at_[entry + 1] - value_at_[entry]);
  }
  // The sample's key: a tar member's name up to the first dot of its file name (WebDataset's
  // __key__); a folder's or list's file path relative to the source; a manifest's image path
  // as the manifest writes it.
  std::string key(std::size_t index) const;
  void append_key(std::size_t index, std::string& out) const;  // no allocation for tar keys
  // Samples left out at index time under on_missing or on_bad = skip (a missing field or image,
  // a bad .cls), the first kMaxSkippedExamples of them with where and why, and their count.
  const std::vector<SkippedSample>& skipped_examples() const { return skipped_examples_; }
  std::size_t skipped() const { return skipped_; }
  static constexpr std::size_t kMaxSkippedExamples = 1000;
  // A remote file's size as the store gave it (0 for local files: ask the file system).
  std::uint64_t file_bytes(std::uint32_t file) const;
  // Where a sample lives, for messages: "path", "shard.tar:member" or, for a manifest,
  // "manifest.jsonl:LINE (image path)".
  std::string describe(std::size_t index) const;
  // True when many samples share a file (tar shards): keep those files open.
  bool files_are_shared() const { return format_ == DatasetFormat::kTarShards; }
  // True when the files are remote objects (s3://, http://, https://): files() are their URLs.
  bool is_remote() const { return remote_; }
  // A remote file's ETag as the store gave it when the index was built (empty when the store
  // gives none, and for local files): reads ask for that version of the object.
  const std::string& etag(std::uint32_t file) const;
  // Drops the dataset's files from the page cache (best effort), so the next reads hit the
  // disk. Returns how many files could not be evicted; the first problem goes to first_error.
  std::size_t evict_from_page_cache(std::string* first_error) const;

  // A detection dataset's annotations (SampleSpec::annotations), read once when it was opened,
  // and which of the table's images sample `index` is; null for the other formats. The table's
  // type is internal to the library (the Batch delivers each image's moved boxes).
  const annotations::AnnotationTable* annotations() const { return annotations_.get(); }
  std::uint32_t annotation_image(std::size_t index) const { return annotated_[index]; }
  // A semantic label map's file for sample `index` (SampleSpec::masks names a folder).
  const std::filesystem::path& mask_file(std::size_t index) const { return mask_files_[index]; }
  bool has_mask_files() const { return !mask_files_.empty(); }
  // Used by the format builders.
  struct Builder;

 private:
  DatasetFormat format_ = DatasetFormat::kImageFolder;
  SampleSpec spec_;
  std::size_t member_fields_ = 0;
  std::vector<SampleRef> samples_;
  // Per sample when member_fields_ > 0: the image's span, then each member field's.
  std::vector<ByteSpan> spans_;
  std::filesystem::path root_;  // keys of folders and lists are relative to it
  std::size_t skipped_ = 0;
  std::vector<SkippedSample> skipped_examples_;
  std::vector<std::size_t> keys_with_field_;  // while tar shards are indexed
  std::string first_key_;
  // While tar shards with KEY.json annotations are indexed: each sample's text, if it has one.
  std::vector<std::optional<std::string>> json_texts_;
  std::vector<std::filesystem::path> files_;
  std::vector<std::string> members_;  // tar member name per sample; empty for other formats
  // Manifests: the manifest, each sample's row (its image path as written, the line it starts
  // on), and the member fields' values back to back, field k of sample i being
  // values_[value_at_[i * member_fields_ + k], value_at_[i * member_fields_ + k + 1]).
  std::filesystem::path manifest_;
  struct Row {
    std::string image;
    std::uint64_t line = 0;
  };
  std::vector<Row> rows_;
  std::string values_;
  std::vector<std::uint64_t> value_at_;
  std::vector<std::string> classes_;
  std::shared_ptr<const annotations::AnnotationTable> annotations_;
  std::vector<std::uint32_t> annotated_;           // per sample: its image in annotations_
  std::vector<std::filesystem::path> mask_files_;  // per sample, with a mask folder
  // A remote dataset's label maps copied to a local folder, where mask_files_ point: removed
  // with the last copy of the Dataset.
  std::shared_ptr<const void> local_copies_;
  std::uint64_t total_bytes_ = 0;
  std::size_t ignored_files_ = 0;
  std::vector<std::string> ignored_examples_;
  bool remote_ = false;
  std::vector<std::string> etags_;         // per file when remote_
  std::vector<std::uint64_t> file_bytes_;  // per file when remote_
};

// True when `extension` (with or without the leading dot, any case) is one of torchvision's
// IMG_EXTENSIONS: jpg jpeg png ppm bmp pgm tif tiff webp.
FEEDRATE_API bool is_image_extension(std::string_view extension);
// True when a file name ends with one of those extensions, as torchvision tests
// name.lower().endswith(IMG_EXTENSIONS): ".png" and "a.b.PNG" are images, "png" is not.
FEEDRATE_API bool is_image_name(std::string_view file_name);
// WebDataset's split of a tar member's name: the key (the path up to the first dot of the file
// name) and the extension (the rest, which says what the member holds; empty without a dot).
FEEDRATE_API std::pair<std::string_view, std::string_view> tar_key(std::string_view name);

}  // namespace feedrate
