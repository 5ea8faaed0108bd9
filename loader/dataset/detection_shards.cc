#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "feedrate/error.h"
#include "io/file.h"
#include "io/tar_index.h"
#include "loader/dataset/annotations/coco.h"
#include "loader/dataset/dataset_builders.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

// Where each key's .json member lies in one shard.
std::unordered_map<std::string, io::TarMember> json_members(int fd, const fs::path& shard) {
  std::unordered_map<std::string, io::TarMember> found;
  try {
    for (io::TarMember& member : io::index_tar(fd, shard)) {
      const auto [key, extension] = tar_key(member.name);
      if (extension == "json") found.emplace(std::string(key), std::move(member));
    }
  } catch (const io::TarError& e) {
    throw Error(e.what());
  }
  return found;
}

}  // namespace

void Dataset::Builder::shard_json_texts(Dataset& dataset, const fs::path& shard, int fd,
                                        std::size_t first, std::size_t end) {
  const std::unordered_map<std::string, io::TarMember> jsons = json_members(fd, shard);
  std::error_code error;
  for (std::size_t i = first; i < end; ++i) {
    const auto json = jsons.find(std::string(tar_key(dataset.members_[i]).first));
    std::optional<std::string>& text = dataset.json_texts_.emplace_back();
    if (json == jsons.end()) continue;
    text.emplace(json->second.size, '\0');
    io::pread_exact(fd, json->second.offset, text->data(), text->size(), error);
    if (error) throw Error(shard.string() + ":" + json->second.name + ": " + error.message());
  }
}

void Dataset::Builder::shard_annotations(Dataset& dataset) {
  const SampleSpec& spec = dataset.spec_;
  if (dataset.format_ != DatasetFormat::kTarShards) {
    throw Error("option annotations: \"json\" reads each sample's KEY.json in tar shards, and " +
                dataset.root_.string() + " is " + format_name(dataset.format_));
  }
  if (!spec.masks.empty() && spec.masks != kInstanceMasks) {
    throw Error(
        "option masks: a folder of label maps does not go with tar shards; their KEY.json "
        "segmentations give instance masks (masks=True)");
  }
  // Each sample's JSON text: a remote dataset's were read from its shards as they streamed;
  // a local one's are read here (one read a sample, of its member only).
  if (!dataset.remote_) {
    dataset.json_texts_.clear();
    // A shard's samples are consecutive (tar_shards indexes one shard after the other).
    for (std::size_t first = 0, end = 0; first < dataset.samples_.size(); first = end) {
      const std::uint32_t f = dataset.samples_[first].file;
      for (end = first; end < dataset.samples_.size() && dataset.samples_[end].file == f;) ++end;
      std::error_code error;
      const io::File file = io::File::open(dataset.files_[f], error);
      if (error) throw Error(dataset.files_[f].string() + ": cannot open: " + error.message());
      shard_json_texts(dataset, dataset.files_[f], file.fd(), first, end);
    }
  }
  std::vector<std::string> texts;
  std::vector<std::size_t> kept;  // the samples that have a KEY.json
  std::vector<annotations::CocoMember> members;
  for (std::size_t i = 0; i < dataset.samples_.size(); ++i) {
    std::optional<std::string>& text = dataset.json_texts_[i];
    if (!text) {
      const std::string key(tar_key(dataset.members_[i]).first);
      std::string where = dataset.files_[dataset.samples_[i].file].string() + ":" + key;
      if (spec.on_missing == BadInputPolicy::kError) {
        throw Error(where + ": no " + key + ".json member (option annotations \"json\")");
      }
      skip(dataset, std::move(where), "no .json member: its annotations are missing");
      continue;
    }
    texts.push_back(std::move(*text));
    kept.push_back(i);
  }
  dataset.json_texts_.clear();
  dataset.json_texts_.shrink_to_fit();
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::size_t i = kept[k];
    members.push_back({texts[k], dataset.members_[i],
                       dataset.files_[dataset.samples_[i].file].string() + ":" +
                           std::string(tar_key(dataset.members_[i]).first) + ".json"});
  }
  annotations::AnnotationTable table = annotations::read_coco_members(
      members, {spec.labels, spec.masks == kInstanceMasks, spec.on_bad == BadInputPolicy::kSkip});
  // The table orders images by id; each sample finds its record by its image member's name.
  std::unordered_map<std::string_view, std::uint32_t> record_of;
  for (std::size_t r = 0; r < table.images.size(); ++r) {
    record_of.emplace(table.images[r].file_name, static_cast<std::uint32_t>(r));
  }
  std::vector<SampleRef> samples;
  std::vector<std::string> names;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::size_t i = kept[k];
    const std::uint32_t record = record_of.at(dataset.members_[i]);
    if (!table.images[record].problem.empty()) {
      skip(dataset, members[k].where, table.images[record].problem);
      continue;
    }
    samples.push_back(dataset.samples_[i]);
    names.push_back(dataset.members_[i]);
    dataset.annotated_.push_back(record);
  }
  dataset.samples_ = std::move(samples);
  dataset.members_ = std::move(names);
  dataset.classes_.clear();
  for (const annotations::Category& category : table.categories) {
    dataset.classes_.push_back(category.name);
  }
  dataset.annotations_ = std::make_shared<const annotations::AnnotationTable>(std::move(table));
}

}  // namespace feedrate
