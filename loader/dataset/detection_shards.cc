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

void Dataset::Builder::shard_annotations(Dataset& dataset) {
  const SampleSpec& spec = dataset.spec_;
  if (dataset.format_ != DatasetFormat::kTarShards) {
    throw Error("option annotations: \"json\" reads each sample's KEY.json in tar shards, and " +
                dataset.root_.string() + " is " + format_name(dataset.format_));
  }
  if (dataset.remote_) {
    throw Error(dataset.root_.string() +
                ": detection datasets are read from a local disk only for now: copy the shards "
                "to a local folder");
  }
  if (!spec.masks.empty() && spec.masks != kInstanceMasks) {
    throw Error(
        "option masks: a folder of label maps does not go with tar shards; their KEY.json "
        "segmentations give instance masks (masks=True)");
  }
  // Each sample's JSON text, read at index time (one read a sample, of its member only).
  std::vector<std::string> texts;
  std::vector<std::size_t> kept;  // the samples that have a KEY.json
  std::vector<annotations::CocoMember> members;
  std::uint32_t open_file = UINT32_MAX;
  io::File file;
  std::unordered_map<std::string, io::TarMember> jsons;
  std::error_code error;
  for (std::size_t i = 0; i < dataset.samples_.size(); ++i) {
    const SampleRef& ref = dataset.samples_[i];
    const fs::path& shard = dataset.files_[ref.file];
    if (ref.file != open_file) {
      file = io::File::open(shard, error);
      if (error) throw Error(shard.string() + ": cannot open: " + error.message());
      jsons = json_members(file.fd(), shard);
      open_file = ref.file;
    }
    const std::string key(tar_key(dataset.members_[i]).first);
    const auto json = jsons.find(key);
    if (json == jsons.end()) {
      std::string where = shard.string() + ":" + key;
      if (spec.on_missing == BadInputPolicy::kError) {
        throw Error(where + ": no " + key + ".json member (option annotations \"json\")");
      }
      skip(dataset, std::move(where), "no .json member: its annotations are missing");
      continue;
    }
    std::string text(json->second.size, '\0');
    io::pread_exact(file.fd(), json->second.offset, text.data(), text.size(), error);
    if (error) throw Error(shard.string() + ":" + json->second.name + ": " + error.message());
    texts.push_back(std::move(text));
    kept.push_back(i);
  }
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
