// The dataset index: every sample as a byte range of a file, with its label. Built once when
// a Loader starts (ImageFolder, file list or tar shards), then read-only. A source may also be a
// URL (s3://bucket/prefix/, https://host/shard-{0000..0099}.tar): its files are then remote
// objects, named by their URLs, with the same index a local copy of the same bytes gets.
//
// Thread-safety: immutable after open(); any number of threads may read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "feedrate/export.h"

namespace feedrate {

enum class DatasetFormat { kImageFolder, kFileList, kTarShards };
FEEDRATE_API const char* format_name(DatasetFormat format);

struct SampleRef {
  std::uint32_t file = 0;    // index into Dataset::files()
  std::uint64_t offset = 0;  // of the sample's first byte in that file
  std::uint64_t size = 0;    // bytes
  std::int32_t label = 0;
};

class FEEDRATE_API Dataset {
 public:
  // Indexes `source` (see LoaderOptions::source), a local path or a URL. Throws feedrate::Error
  // naming the file and the problem when it cannot: a missing path, an empty dataset, a malformed
  // tar or list, an ImageFolder class without images (unless allow_empty_classes).
  static Dataset open(const std::filesystem::path& source, bool allow_paths_outside_root = false,
                      bool allow_empty_classes = false);

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
  // not an image's (is_image_name), and the first kMaxIgnoredExamples of them.
  std::size_t ignored_files() const { return ignored_files_; }
  const std::vector<std::string>& ignored_examples() const { return ignored_examples_; }
  static constexpr std::size_t kMaxIgnoredExamples = 3;
  // A tar shard's member name of sample `index`; empty for the other formats.
  const std::string& member(std::size_t index) const;
  // A remote file's size as the store gave it (0 for local files: ask the file system).
  std::uint64_t file_bytes(std::uint32_t file) const;
  // Where a sample lives, for messages: "path" or "shard.tar:member".
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

  // Used by the format builders.
  struct Builder;

 private:
  DatasetFormat format_ = DatasetFormat::kImageFolder;
  std::vector<SampleRef> samples_;
  std::vector<std::filesystem::path> files_;
  std::vector<std::string> members_;  // tar member name per sample; empty for other formats
  std::vector<std::string> classes_;
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

}  // namespace feedrate
