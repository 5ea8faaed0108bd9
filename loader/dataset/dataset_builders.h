// The dataset formats. Internal to loader/: each fills a Dataset from its source and
// throws feedrate::Error naming the file and the problem.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "feedrate/dataset.h"
#include "loader/dataset/annotations/annotation_table.h"
#include "loader/dataset/pack_index.h"

namespace feedrate {
namespace io {
struct ObjectInfo;
class ObjectStore;
struct TarMember;
}  // namespace io

// The largest label accepted: classes() lists every label up to the largest one, so an absurd
// label (2147483647) would cost gigabytes of class names (and overflow the loop listing them);
// one line with label 2305138 already took seconds (found by fuzz_file_list). A million classes
// covers ImageNet-21k (21,841) and most face-identity sets.
inline constexpr std::int32_t kMaxLabel = (1 << 20) - 1;

// A detection dataset's annotations (a COCO json, a YOLO data.yaml over the images folder
// `source`, a VOC Annotations/ folder; none: the images of `source`, for label maps alone) read
// into a table, and the folder its image names are relative to: `source`, or the VOC root.
// Throws feedrate::Error naming the file (loader/dataset/detection_source.cc).
struct DetectionTable {
  annotations::AnnotationTable table;
  std::filesystem::path image_root;
};
DetectionTable read_detection_table(const std::filesystem::path& source,
                                    const std::filesystem::path& annotations,
                                    const SampleSpec& spec);

// The label in a .cls member's bytes (decimal, trailing blanks allowed), or what is wrong with it.
std::variant<std::int32_t, std::string> parse_cls_label(std::string_view text);

// One line of a file list ("relative/path label"); nullopt for a blank or '#' comment line.
// Throws feedrate::Error, `where` first, for a line without a label or with a bad one.
struct ListLine {
  std::string path;
  std::int32_t label = 0;
};
std::optional<ListLine> parse_list_line(const std::string& line, const std::string& where);

// True when a list's or manifest's path leaves its folder: an absolute path, or one whose
// normal form starts with "..".
bool escapes_root(const std::filesystem::path& relative);

// Hidden: Dataset is exported (FEEDRATE_API), and its nested class would be too.
struct __attribute__((visibility("hidden"))) Dataset::Builder {
  // root/<class>/**/<image>; classes sorted by name become labels 0..C-1, and a file is an
  // image when is_image_extension says so (torchvision's ImageFolder). A class without images
  // is an error unless allow_empty_classes.
  static void image_folder(Dataset& dataset, const std::filesystem::path& root,
                           bool allow_empty_classes);
  // Lines "relative/path label", relative to the list's folder; '#' starts a comment line.
  static void file_list(Dataset& dataset, const std::filesystem::path& list, bool allow_outside);
  // A manifest (loader/dataset/manifest.cc): JSON Lines or CSV rows, each an image path relative
  // to the manifest's folder (absolute or "../" paths only with allow_outside) and columns that
  // the member fields name; cls is the integer column cls or label.
  static void manifest(Dataset& dataset, const std::filesystem::path& manifest, bool allow_outside);
  // WebDataset shards: members grouped by key (tar_key); a sample is a key's image member
  // (dataset.spec().image) and its requested fields; cls is read into the label here. Members
  // no sample uses are ignored and counted.
  static void tar_shards(Dataset& dataset, const std::vector<std::filesystem::path>& shards);
  // One shard of those, read through `fd` (a local file, or a remote shard's bytes held
  // locally); `shard` is its name in the index and in messages. Adds its labels to `labels`.
  // Returns the archive's member count.
  static std::size_t tar_shard(Dataset& dataset, const std::filesystem::path& shard, int fd,
                               std::set<std::int32_t>& labels);
  // A shard its pack index lists whole (PackIndex::Shard::tar): the samples tar_shard makes,
  // the .cls labels from the listing; no byte of the shard is read.
  static void archive_shard(Dataset& dataset, const std::string& shard,
                            const std::vector<PackIndex::TarEntry>& tar,
                            std::set<std::int32_t>& labels);
  // tar_shard's and archive_shard's samples of `members`: read_label gives a .cls member's
  // label, or what is wrong with it.
  static void add_tar_members(
      Dataset& dataset, const std::filesystem::path& shard,
      const std::vector<io::TarMember>& members,
      const std::function<std::variant<std::int32_t, std::string>(const io::TarMember&)>&
          read_label,
      std::set<std::int32_t>& labels);
  // classes() as the labels' text, "0" to the largest label.
  static void label_classes(Dataset& dataset, const std::set<std::int32_t>& labels);
  // s3:// and http(s):// sources (loader/dataset/remote_dataset.cc): tar shards named by a URL,
  // a brace pattern, a pack's index.json (loader/dataset/remote_pack.h) or an s3:// prefix
  // holding .tar objects, else an ImageFolder tree of one object per image under the prefix.
  static void remote(Dataset& dataset, const std::string& source, bool allow_empty_classes);
  // A file list at a URL: `text` holds its lines, each path relative to the list's folder (no
  // absolute or "../" paths); the objects' sizes and ETags come from `store`.
  static void remote_file_list(Dataset& dataset, const std::string& list, const std::string& text,
                               io::ObjectStore& store);
  // Remote shards whose pack index (`index_url`: beside them, or the source itself) lists their
  // members: no shard is read.
  static void indexed_shards(Dataset& dataset, const std::vector<io::ObjectInfo>& shards,
                             const PackIndex& index, const std::string& index_url,
                             std::set<std::int32_t>& labels);
  static void remote_image_folder(Dataset& dataset, const std::string& root,
                                  const std::vector<io::ObjectInfo>& objects,
                                  bool allow_empty_classes);
  // A detection dataset (loader/dataset/detection_source.cc): the images that
  // spec().annotations lists (a COCO json, a YOLO data.yaml or a VOC Annotations/ folder), under
  // `source`, each with its boxes. An image whose file is missing follows spec().on_bad.
  static void detection(Dataset& dataset, const std::filesystem::path& source);
  // A COCO json (local or a URL, fetched once) for images under an s3:// prefix, listed once, or
  // an https:// folder, one HEAD an image; a YOLO or VOC dataset, or images with label maps,
  // under an s3:// prefix, its label, xml or label-map files mirrored locally
  // (loader/dataset/remote_detection.cc).
  static void remote_detection(Dataset& dataset, const std::string& source);
  // The images of a detection table as samples: `locate` gives an image's file (a path or a
  // URL), its size and ETag, or sets its problem; an image with a problem, a box outside it, or
  // no label map in `maps` (one per image when label maps are asked) follows the policies.
  struct AnnotatedFile {
    std::string name;
    std::uint64_t size = 0;
    std::string etag;
  };
  static void add_annotated(
      Dataset& dataset, annotations::AnnotationTable table, const std::string& listed,
      std::vector<std::filesystem::path> maps,
      const std::function<AnnotatedFile(const annotations::ImageRecord&, std::string&)>& locate);
  // Tar shards whose KEY.json holds each image's COCO-style annotations (SampleSpec::annotations
  // "json", loader/dataset/detection_shards.cc): after tar_shards, each sample's member is read
  // and parsed into the annotation table; a sample without one follows spec().on_missing, one
  // with a bad annotation spec().on_bad.
  static void shard_annotations(Dataset& dataset);
  // Appends to the dataset's KEY.json texts those of samples [first, end), which are `shard`'s
  // (open as `fd`): each key's .json member, or none. Called per shard as a remote dataset's
  // shards stream, and by shard_annotations for local ones.
  static void shard_json_texts(Dataset& dataset, const std::filesystem::path& shard, int fd,
                               std::size_t first, std::size_t end);
  // Counts a file left out because it is not an image, keeping the first few as examples.
  static void ignore(Dataset& dataset, std::string what);
  // Counts a sample left out of the index under a skip policy, keeping the first few.
  static void skip(Dataset& dataset, std::string where, std::string reason);
  // Tar shards: how many keys hold each field of spec().fields, and what the first key holds
  // ("shard:key holds jpg, txt"); finish() refuses a field that no key holds.
  static std::vector<std::size_t>& keys_with_field(Dataset& dataset) {
    return dataset.keys_with_field_;
  }
  static std::string& first_key(Dataset& dataset) { return dataset.first_key_; }
  static void finish(Dataset& dataset, const std::filesystem::path& source);
};

}  // namespace feedrate
