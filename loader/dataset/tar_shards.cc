#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <variant>

#include "feedrate/error.h"
#include "io/file.h"
#include "io/tar_index.h"
#include "loader/dataset/dataset_builders.h"
#include "loader/dataset/pack_index.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;

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

// A key's members, in archive order (indices into the shard's members).
struct Group {
  std::string_view key;
  std::vector<std::size_t> members;
};

// Members grouped by key, the keys in the order of their first member. A second member of a key
// with an extension the key already has is bad input: under on_bad=skip it is left out (and
// listed), the first one kept.
std::vector<Group> group_by_key(Dataset& dataset, const fs::path& shard,
                                const std::vector<io::TarMember>& members) {
  std::vector<Group> groups;
  std::unordered_map<std::string_view, std::size_t> group_of;
  for (std::size_t m = 0; m < members.size(); ++m) {
    const auto [key, extension_part] = tar_key(members[m].name);
    const std::string_view extension = extension_part;  // a lambda below takes it (clang)
    if (extension.empty()) {
      Dataset::Builder::ignore(dataset, shard.string() + ":" + members[m].name);
      continue;
    }
    const auto [it, inserted] = group_of.try_emplace(key, groups.size());
    if (inserted) groups.push_back({key, {}});
    Group& group = groups[it->second];
    const auto same = std::find_if(group.members.begin(), group.members.end(), [&](std::size_t k) {
      return tar_key(members[k].name).second == extension;
    });
    if (same == group.members.end()) {
      group.members.push_back(m);
      continue;
    }
    const std::string where = shard.string() + ":" + members[m].name;
    const std::string reason = "a second member " + members[m].name + " of key " +
                               std::string(key) + " in this shard (at byte " +
                               std::to_string(members[m].offset) + "; the first, at byte " +
                               std::to_string(members[*same].offset) + ", is used)";
    if (dataset.spec().on_bad == BadInputPolicy::kError) throw Error(where + ": " + reason);
    Dataset::Builder::skip(dataset, where, reason);
  }
  return groups;
}

// A .cls member's label, or what is wrong with it.
using Label = std::variant<std::int32_t, std::string>;
// Reads the label of a .cls member; throws feedrate::Error when the member cannot be read.
using LabelReader = std::function<Label(const io::TarMember&)>;

constexpr std::size_t kMostLabelBytes = 32;

}  // namespace

Label parse_cls_label(std::string_view digits) {
  // White space around the number, as Python's int() (webdataset's decoder) allows it.
  const auto space = [](char c) { return c == '\n' || c == ' ' || c == '\r' || c == '\t'; };
  while (!digits.empty() && space(digits.back())) digits.remove_suffix(1);
  while (!digits.empty() && space(digits.front())) digits.remove_prefix(1);
  std::int32_t label = -1;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), label);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || label < 0 || label > kMaxLabel) {
    return "label '" + std::string(digits) + "' is not an integer in [0, " +
           std::to_string(kMaxLabel) + "]";
  }
  return label;
}

namespace {

// The label of a .cls member of the shard open as `fd`.
LabelReader labels_in_file(const fs::path& shard, int fd) {
  return [&shard, fd](const io::TarMember& member) -> Label {
    char text[kMostLabelBytes] = {};
    if (member.size == 0) return "label is empty (0 bytes)";
    if (member.size >= sizeof(text)) {
      return "label is not a short number (" + std::to_string(member.size) + " bytes)";
    }
    std::error_code error;
    io::pread_exact(fd, member.offset, text, member.size, error);
    if (error) {
      throw Error(shard.string() + ":" + member.name + ": cannot read: " + error.message());
    }
    return parse_cls_label(std::string_view(text, member.size));
  };
}

// Makes one sample of a key's members, or leaves it out (listed) under the skip policies.
class SampleMaker {
 public:
  SampleMaker(Dataset& dataset, const fs::path& shard, LabelReader read_label, std::uint32_t file,
              const std::vector<io::TarMember>& members)
      : dataset_(dataset),
        shard_(shard),
        read_label_(std::move(read_label)),
        file_(file),
        members_(members) {}

  struct Made {
    SampleRef ref;
    std::string image;  // the image member's name
  };
  // The key's sample (its label added to `labels`, its spans to `spans`); nullopt when it is
  // left out.
  std::optional<Made> make(const Group& group, std::set<std::int32_t>& labels,
                           std::vector<ByteSpan>& spans) {
    group_ = &group;
    used_.assign(group.members.size(), false);
    count_fields(dataset_.spec().fields);
    const io::TarMember* image = image_of(group);
    if (image == nullptr) {
      if (holds_a_field()) return missing("no image member (" + wanted_images() + ")");
      ignore_unused();  // a stray file, no sample's
      return std::nullopt;
    }
    std::optional<std::int32_t> label;
    std::vector<const io::TarMember*> fields;
    for (const FieldSpec& field : dataset_.spec().fields) {
      if (field.kind == FieldKind::kKey) continue;
      const io::TarMember* member = first_of(field.alternatives);
      if (member == nullptr) {
        return missing("no ." + field.alternatives.front() + " member (field '" + field.entry +
                       "')");
      }
      if (field.kind != FieldKind::kClass) {
        fields.push_back(member);
        continue;
      }
      Label read = read_label_(*member);
      if (auto* problem = std::get_if<std::string>(&read)) {
        const std::string where = shard_.string() + ":" + member->name;
        if (dataset_.spec().on_bad == BadInputPolicy::kError) throw Error(where + ": " + *problem);
        Dataset::Builder::skip(dataset_, where, *problem);
        return std::nullopt;
      }
      label = std::get<std::int32_t>(read);
    }
    std::uint64_t begin = image->offset, end = image->offset + image->size;
    for (const io::TarMember* member : fields) {
      begin = std::min(begin, member->offset);
      end = std::max(end, member->offset + member->size);
    }
    if (end - begin > UINT32_MAX) {
      throw Error(shard_.string() + ":" + std::string(group.key) +
                  ": the key's members span more than 4 GiB of the shard");
    }
    if (dataset_.member_fields() > 0) {
      spans.push_back({static_cast<std::uint32_t>(image->offset - begin),
                       static_cast<std::uint32_t>(image->size)});
      for (const io::TarMember* member : fields) {
        spans.push_back({static_cast<std::uint32_t>(member->offset - begin),
                         static_cast<std::uint32_t>(member->size)});
      }
    }
    if (label) labels.insert(*label);  // without a cls field, the dataset has no classes
    ignore_unused();
    return Made{{file_, begin, end - begin, label.value_or(0)}, image->name};
  }

 private:
  const io::TarMember* take(std::size_t k) {
    used_[k] = true;
    return &members_[group_->members[k]];
  }

  void ignore_unused() {
    for (std::size_t k = 0; k < group_->members.size(); ++k) {
      if (!used_[k]) {
        Dataset::Builder::ignore(dataset_,
                                 shard_.string() + ":" + members_[group_->members[k]].name);
      }
    }
  }

  // Counts the keys that hold each field (Builder::check_fields_found), and remembers what the
  // first key holds for its message.
  void count_fields(const std::vector<FieldSpec>& fields) {
    std::vector<std::size_t>& found = Dataset::Builder::keys_with_field(dataset_);
    found.resize(fields.size());
    for (std::size_t f = 0; f < fields.size(); ++f) {
      for (std::size_t k : group_->members) {
        const std::string_view extension = tar_key(members_[k].name).second;
        if (std::find(fields[f].alternatives.begin(), fields[f].alternatives.end(), extension) !=
            fields[f].alternatives.end()) {
          ++found[f];
          break;
        }
      }
    }
    std::string& first = Dataset::Builder::first_key(dataset_);
    if (first.empty())
      first = shard_.string() + ":" + std::string(group_->key) + " holds " + holds();
  }

  std::string holds() const {
    std::string text;
    for (std::size_t k : group_->members) {
      text += (text.empty() ? "" : ", ") + std::string(tar_key(members_[k].name).second);
    }
    return text;
  }

  // True when one of the key's members is a field the samples ask for.
  bool holds_a_field() const {
    for (std::size_t k : group_->members) {
      const std::string_view extension = tar_key(members_[k].name).second;
      for (const FieldSpec& field : dataset_.spec().fields) {
        if (std::find(field.alternatives.begin(), field.alternatives.end(), extension) !=
            field.alternatives.end()) {
          return true;
        }
      }
    }
    return false;
  }

  const io::TarMember* image_of(const Group& group) {
    if (dataset_.spec().image.empty()) {
      for (std::size_t k = 0; k < group.members.size(); ++k) {
        if (is_image_key(tar_key(members_[group.members[k]].name).second)) return take(k);
      }
      return nullptr;
    }
    return first_of(dataset_.spec().image);
  }

  const io::TarMember* first_of(const std::vector<std::string>& extensions) {
    for (const std::string& extension : extensions) {
      for (std::size_t k = 0; k < group_->members.size(); ++k) {
        if (tar_key(members_[group_->members[k]].name).second == extension) return take(k);
      }
    }
    return nullptr;
  }

  std::string wanted_images() const {
    if (dataset_.spec().image.empty()) return "any image extension";
    std::string text;
    for (const std::string& extension : dataset_.spec().image) {
      text += (text.empty() ? "." : " or .") + extension;
    }
    return text;
  }

  // A key without a member it needs: an error, or left out and listed with what it holds.
  std::nullopt_t missing(const std::string& what) {
    const std::string where = shard_.string() + ":" + std::string(group_->key);
    const std::string reason = what + "; the key holds " + holds();
    if (dataset_.spec().on_missing == BadInputPolicy::kError) throw Error(where + ": " + reason);
    Dataset::Builder::skip(dataset_, where, reason);
    return std::nullopt;
  }

  Dataset& dataset_;
  const fs::path& shard_;
  const LabelReader read_label_;
  const std::uint32_t file_;
  const std::vector<io::TarMember>& members_;
  const Group* group_ = nullptr;
  std::vector<bool> used_;
};

}  // namespace

std::size_t Dataset::Builder::tar_shard(Dataset& dataset, const fs::path& shard, int fd,
                                        std::set<std::int32_t>& labels) {
  std::vector<io::TarMember> members;
  try {
    if (dataset.spec().on_bad == BadInputPolicy::kSkip) {
      // A shard cut short (an interrupted download) keeps the members whole before the cut.
      std::string cut;
      members = io::index_tar_prefix(fd, shard, cut);
      if (!cut.empty()) skip(dataset, shard.string(), cut + "; the members from there on are lost");
    } else {
      members = io::index_tar(fd, shard);
    }
  } catch (const io::TarError& e) {
    throw Error(e.what());
  }
  add_tar_members(dataset, shard, members, labels_in_file(shard, fd), labels);
  return members.size();
}

void Dataset::Builder::archive_shard(Dataset& dataset, const std::string& shard,
                                     const std::vector<PackIndex::TarEntry>& tar,
                                     std::set<std::int32_t>& labels) {
  std::vector<io::TarMember> members;
  std::unordered_map<std::uint64_t, std::string_view> texts;  // .cls bytes by offset
  for (const PackIndex::TarEntry& entry : tar) {
    members.push_back({entry.name, entry.offset, entry.size});
    if (!entry.text.empty()) texts.emplace(entry.offset, entry.text);
  }
  add_tar_members(
      dataset, shard, members,
      [&texts](const io::TarMember& member) -> Label {
        const auto text = texts.find(member.offset);
        if (member.size == 0 || member.size >= kMostLabelBytes || text == texts.end() ||
            text->second.size() != member.size) {
          return "label is not a short number";
        }
        return parse_cls_label(text->second);
      },
      labels);
}

void Dataset::Builder::add_tar_members(Dataset& dataset, const fs::path& shard,
                                       const std::vector<io::TarMember>& members,
                                       const LabelReader& read_label,
                                       std::set<std::int32_t>& labels) {
  const auto file_index = static_cast<std::uint32_t>(dataset.files_.size());
  dataset.files_.push_back(shard);
  SampleMaker maker(dataset, shard, read_label, file_index, members);
  for (const Group& group : group_by_key(dataset, shard, members)) {
    if (auto made = maker.make(group, labels, dataset.spans_)) {
      dataset.samples_.push_back(made->ref);
      dataset.members_.push_back(std::move(made->image));
    }
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
    const std::size_t members = tar_shard(dataset, shard, file.fd(), labels);
    // A packed shard is checked against its pack's index: a shard cut short or altered after
    // the pack finished holds other members, or samples, than the index records.
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
      if (!entry->tar.empty() && members != entry->tar.size()) {
        throw Error(shard.string() + ": holds " + std::to_string(members) + " members where " +
                    index_file + " lists " + std::to_string(entry->tar.size()) +
                    " (the shard was altered after it was indexed)");
      }
      if (entry->tar.empty() && samples != entry->samples) {
        throw Error(shard.string() + ": holds " + std::to_string(samples) + " samples where " +
                    index_file + " records " + std::to_string(entry->samples) +
                    " (the shard was altered after feedrate pack)");
      }
    }
  }
  label_classes(dataset, labels);
}

}  // namespace feedrate
