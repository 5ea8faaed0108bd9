#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "feedrate/error.h"
#include "io/file.h"
#include "io/tar_index.h"
#include "loader/dataset/dataset_builders.h"
#include "loader/dataset/pack_index.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

// WebDataset's key: the member path up to the first dot of its base name; the rest is the
// extension that says what the member holds.
std::pair<std::string_view, std::string_view> split_key(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  const std::size_t dot = name.find('.', slash == std::string_view::npos ? 0 : slash + 1);
  if (dot == std::string_view::npos) return {name, {}};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

// WebDataset names the kinds of member by lower-case extension: the image kinds ImageFolder
// accepts.
bool is_image_key(std::string_view extension) {
  return is_image_extension(extension) && std::none_of(extension.begin(), extension.end(),
                                                       [](char c) { return c >= 'A' && c <= 'Z'; });
}

// The index of the pack whose folder holds `shard`, read once per folder into `cache`; null when
// the folder is not a feedrate pack.
const PackIndex* pack_index_of(const fs::path& shard,
                               std::map<fs::path, std::optional<PackIndex>>& cache) {
  auto [it, inserted] = cache.try_emplace(shard.parent_path());
  if (inserted) it->second = read_pack_index(shard.parent_path());
  return it->second ? &*it->second : nullptr;
}

}  // namespace

void Dataset::Builder::tar_shard(Dataset& dataset, const fs::path& shard, int fd,
                                 std::set<std::int32_t>& labels) {
  std::vector<io::TarMember> members;
  try {
    members = io::index_tar(fd, shard);
  } catch (const io::TarError& e) {
    throw Error(e.what());
  }
  // Pair key.jpg with key.cls, keeping the archive order of the images.
  struct Pending {
    const io::TarMember* image = nullptr;
    const io::TarMember* label = nullptr;
  };
  std::map<std::string_view, Pending> by_key;
  std::vector<std::string_view> order;
  for (const io::TarMember& member : members) {
    const auto [key, extension] = split_key(member.name);
    Pending& pending = by_key[key];
    if (is_image_key(extension)) {
      if (pending.image == nullptr && pending.label == nullptr) order.push_back(key);
      if (pending.image == nullptr) pending.image = &member;
    } else if (extension == "cls") {
      if (pending.image == nullptr && pending.label == nullptr) order.push_back(key);
      pending.label = &member;
    } else {
      ignore(dataset, shard.string() + ":" + member.name);
    }
  }
  const auto file_index = static_cast<std::uint32_t>(dataset.files_.size());
  dataset.files_.push_back(shard);
  for (std::string_view key : order) {
    const Pending& pending = by_key[key];
    const std::string where = shard.string() + ":" + std::string(key);
    if (pending.image == nullptr) throw Error(where + ".cls has no matching image member");
    if (pending.label == nullptr) {
      throw Error(shard.string() + ":" + pending.image->name + " has no matching .cls member");
    }
    char text[32] = {};
    if (pending.label->size == 0 || pending.label->size >= sizeof(text)) {
      throw Error(shard.string() + ":" + pending.label->name + ": label is not a short number");
    }
    std::error_code error;
    io::pread_exact(fd, pending.label->offset, text, pending.label->size, error);
    if (error) {
      throw Error(shard.string() + ":" + pending.label->name + ": cannot read: " + error.message());
    }
    std::string_view digits(text, pending.label->size);
    while (!digits.empty() &&
           (digits.back() == '\n' || digits.back() == ' ' || digits.back() == '\r')) {
      digits.remove_suffix(1);
    }
    std::int32_t label = -1;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), label);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || label < 0 ||
        label > kMaxLabel) {
      throw Error(shard.string() + ":" + pending.label->name + ": label '" + std::string(digits) +
                  "' is not an integer in [0, " + std::to_string(kMaxLabel) + "]");
    }
    dataset.samples_.push_back({file_index, pending.image->offset, pending.image->size, label});
    dataset.members_.push_back(pending.image->name);
    labels.insert(label);
  }
}

void Dataset::Builder::label_classes(Dataset& dataset, const std::set<std::int32_t>& labels) {
  if (labels.empty()) return;
  for (std::int32_t label = 0; label <= *labels.rbegin(); ++label) {
    dataset.classes_.push_back(std::to_string(label));
  }
}

void Dataset::Builder::tar_shards(Dataset& dataset, const std::vector<fs::path>& shards) {
  std::set<std::int32_t> labels;
  std::map<fs::path, std::optional<PackIndex>> pack_indexes;
  for (const fs::path& shard : shards) {
    const std::size_t first_sample = dataset.samples_.size();
    std::error_code error;
    io::File file = io::File::open(shard, error);
    if (error) throw Error(shard.string() + ": cannot open: " + error.message());
    tar_shard(dataset, shard, file.fd(), labels);
    // A packed shard is checked against its pack's index: a shard cut short or altered after
    // the pack finished holds other samples than the index records.
    const PackIndex* pack = pack_index_of(shard, pack_indexes);
    const PackIndex::Shard* entry = pack ? pack->shard(shard.filename().string()) : nullptr;
    if (entry != nullptr) {
      const std::size_t samples = dataset.samples_.size() - first_sample;
      const std::string index_file = (shard.parent_path() / kPackIndexFile).string();
      std::error_code size_error;
      const std::uint64_t bytes = fs::file_size(shard, size_error);
      if (!size_error && bytes != entry->bytes) {
        throw Error(shard.string() + ": " + std::to_string(bytes) + " bytes where " + index_file +
                    " records " + std::to_string(entry->bytes) +
                    " (the shard was altered after feedrate pack)");
      }
      if (samples != entry->samples) {
        throw Error(shard.string() + ": holds " + std::to_string(samples) + " samples where " +
                    index_file + " records " + std::to_string(entry->samples) +
                    " (the shard was altered after feedrate pack)");
      }
    }
  }
  label_classes(dataset, labels);
}

}  // namespace feedrate
