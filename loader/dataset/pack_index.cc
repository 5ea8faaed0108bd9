#include "loader/dataset/pack_index.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "feedrate/error.h"
#include "io/file.h"
#include "io/tar_index.h"
#include "loader/dataset/dataset_builders.h"

namespace feedrate {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kFormat = "feedrate-pack";
// A .cls member's bytes are kept in the listing below this size (a label is a short number).
constexpr std::uint64_t kMostClsBytes = 32;

// Reads the fields of one JSON object of the index; a missing or mistyped field throws an Error
// naming the file and the field's path in it (e.g. shards[2].samples).
class Fields {
 public:
  Fields(const json& object, const std::string& file, std::string where)
      : object_(object), file_(file), where_(std::move(where)) {
    if (!object_.is_object()) fail(where_.empty() ? "the index" : where_, "an object");
  }

  std::uint64_t count(const char* key) const {
    const json& value = at(key);
    if (!value.is_number_unsigned()) fail(name(key), "a non-negative integer");
    return value.get<std::uint64_t>();
  }
  int integer(const char* key) const {
    const json& value = at(key);
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
        value.get<std::int64_t>() > std::numeric_limits<int>::max()) {
      fail(name(key), "a non-negative integer");
    }
    return value.get<int>();
  }
  std::string text(const char* key) const {
    const json& value = at(key);
    if (!value.is_string()) fail(name(key), "a string");
    return value.get<std::string>();
  }
  Fields object(const char* key) const { return Fields(at(key), file_, name(key)); }
  const json& raw(const char* key) const { return at(key); }
  bool has(const char* key) const { return object_.contains(key); }
  // Calls read(Fields) for each element of the array `key`.
  template <typename Read>
  void each(const char* key, Read read) const {
    const json& array = at(key);
    if (!array.is_array()) fail(name(key), "an array");
    for (std::size_t i = 0; i < array.size(); ++i) {
      read(Fields(array[i], file_, name(key) + "[" + std::to_string(i) + "]"));
    }
  }

 private:
  const json& at(const char* key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) {
      throw Error(file_ + ": damaged feedrate pack index: " + name(key) + " is missing");
    }
    return *it;
  }
  std::string name(const char* key) const { return where_.empty() ? key : where_ + "." + key; }
  [[noreturn]] void fail(const std::string& field, const char* expected) const {
    throw Error(file_ + ": damaged feedrate pack index: " + field + " is not " + expected);
  }

  const json& object_;
  const std::string& file_;
  std::string where_;
};

// A shard's "tar": [[name, offset, size], ...], a .cls member with its text as a fourth value.
void read_archive(const Fields& shard, const std::string& file,
                  std::vector<PackIndex::TarEntry>& tar) {
  const json& entries = shard.raw("tar");
  if (!entries.is_array()) {
    throw Error(file + ": damaged feedrate pack index: shard " + shard.text("name") +
                ": tar is not an array");
  }
  for (const json& entry : entries) {
    const bool ok = entry.is_array() && (entry.size() == 3 || entry.size() == 4) &&
                    entry[0].is_string() && entry[1].is_number_unsigned() &&
                    entry[2].is_number_unsigned() && (entry.size() == 3 || entry[3].is_string());
    if (!ok) {
      throw Error(file + ": damaged feedrate pack index: shard " + shard.text("name") +
                  ": a tar entry is not [name, offset, size] or [name, offset, size, text]");
    }
    tar.push_back({entry[0].get<std::string>(), entry[1].get<std::uint64_t>(),
                   entry[2].get<std::uint64_t>(),
                   entry.size() == 4 ? entry[3].get<std::string>() : std::string()});
  }
}

PackIndex parse(const json& root, const std::string& file) {
  const Fields fields(root, file, "");
  PackIndex index;
  index.version = fields.integer("version");
  if (index.version < 1 || index.version > kPackIndexVersion) {
    throw Error(file + ": feedrate pack index version " + std::to_string(index.version) +
                "; this feedrate reads " +
                (kPackIndexVersion == 1 ? std::string("version 1")
                                        : "versions 1 to " + std::to_string(kPackIndexVersion)) +
                " (pack the dataset again with this feedrate, or use the feedrate that packed it)");
  }
  index.source = fields.text("source");
  index.source_samples = fields.count("source_samples");
  index.samples = fields.count("samples");
  const Fields options = fields.object("options");
  index.options = {options.integer("max_side"), options.integer("quality"),
                   options.integer("restart_mcus"), options.integer("shard_mb")};
  fields.each("shards", [&](const Fields& shard) {
    index.shards.push_back({shard.text("name"),
                            shard.count("first"),
                            shard.count("samples"),
                            shard.count("bytes"),
                            {},
                            {}});
    if (shard.has("tar")) read_archive(shard, file, index.shards.back().tar);
    if (!shard.has("members")) return;
    shard.each("members", [&](const Fields& member) {
      const std::uint64_t label = member.count("label");
      index.shards.back().members.push_back(
          {member.text("name"), member.count("offset"), member.count("size"),
           static_cast<std::int32_t>(
               std::min<std::uint64_t>(label, std::numeric_limits<std::int32_t>::max()))});
    });
  });
  const Fields counts = fields.object("counts");
  index.counts = {counts.count("lossless"), counts.count("resized"), counts.count("unchanged"),
                  counts.count("skipped")};
  fields.each("skipped", [&](const Fields& skipped) {
    index.skipped.push_back(
        {skipped.count("index"), skipped.text("source"), skipped.text("error")});
  });
  fields.each("resized", [&](const Fields& resized) {
    index.resized.push_back({resized.count("index"), resized.integer("source_width"),
                             resized.integer("source_height")});
  });
  index.source_bytes = fields.count("source_bytes");
  index.image_bytes = fields.count("image_bytes");
  index.shard_bytes = fields.count("shard_bytes");
  return index;
}

json to_json(const PackIndex& index) {
  json shards = json::array(), skipped = json::array(), resized = json::array();
  for (const PackIndex::Shard& shard : index.shards) {
    json entry = {{"name", shard.name},
                  {"first", shard.first},
                  {"samples", shard.samples},
                  {"bytes", shard.bytes}};
    if (!shard.members.empty()) {
      json members = json::array();
      for (const PackIndex::Member& m : shard.members) {
        members.push_back(
            {{"name", m.name}, {"offset", m.offset}, {"size", m.size}, {"label", m.label}});
      }
      entry["members"] = std::move(members);
    }
    if (!shard.tar.empty()) {
      json tar = json::array();
      for (const PackIndex::TarEntry& m : shard.tar) {
        json row = {m.name, m.offset, m.size};
        if (!m.text.empty()) row.push_back(m.text);
        tar.push_back(std::move(row));
      }
      entry["tar"] = std::move(tar);
    }
    shards.push_back(std::move(entry));
  }
  for (const PackIndex::Skipped& sample : index.skipped) {
    skipped.push_back(
        {{"index", sample.index}, {"source", sample.source}, {"error", sample.error}});
  }
  for (const PackIndex::Resized& sample : index.resized) {
    resized.push_back({{"index", sample.index},
                       {"source_width", sample.source_width},
                       {"source_height", sample.source_height}});
  }
  return {{"format", kFormat},
          {"version", index.version},
          {"source", index.source},
          {"source_samples", index.source_samples},
          {"samples", index.samples},
          {"options",
           {{"max_side", index.options.max_side},
            {"quality", index.options.quality},
            {"restart_mcus", index.options.restart_mcus},
            {"shard_mb", index.options.shard_mb}}},
          {"shards", shards},
          {"counts",
           {{"lossless", index.counts.lossless},
            {"resized", index.counts.resized},
            {"unchanged", index.counts.unchanged},
            {"skipped", index.counts.skipped}}},
          {"skipped", skipped},
          {"resized", resized},
          {"source_bytes", index.source_bytes},
          {"image_bytes", index.image_bytes},
          {"shard_bytes", index.shard_bytes}};
}

// A local shard's members (archive_of).
std::vector<PackIndex::TarEntry> archive_of(const fs::path& shard) {
  std::error_code error;
  const io::File file = io::File::open(shard, error);
  if (error) throw Error(shard.string() + ": cannot open: " + error.message());
  return feedrate::archive_of(file.fd(), shard);
}

// Each member's label: its key's .cls in the shard's listing, where the key has a valid one.
void label_members(PackIndex::Shard& shard) {
  std::map<std::string_view, std::int32_t> labels;
  for (const PackIndex::TarEntry& entry : shard.tar) {
    if (entry.text.empty()) continue;
    const auto label = parse_cls_label(entry.text);
    if (const auto* value = std::get_if<std::int32_t>(&label)) {
      labels.emplace(tar_key(entry.name).first, *value);
    }
  }
  for (PackIndex::Member& member : shard.members) {
    const auto found = labels.find(tar_key(member.name).first);
    if (found != labels.end()) member.label = found->second;
  }
}

}  // namespace

std::vector<PackIndex::TarEntry> archive_of(int fd, const fs::path& shard) {
  std::vector<io::TarMember> members;
  try {
    members = io::index_tar(fd, shard);
  } catch (const io::TarError& e) {
    throw Error(e.what());
  }
  std::vector<PackIndex::TarEntry> tar;
  for (io::TarMember& member : members) {
    std::string text;
    if (tar_key(member.name).second == "cls" && member.size > 0 && member.size < kMostClsBytes) {
      text.resize(member.size);
      std::error_code error;
      io::pread_exact(fd, member.offset, text.data(), member.size, error);
      if (error) {
        throw Error(shard.string() + ":" + member.name + ": cannot read: " + error.message());
      }
    }
    tar.push_back({std::move(member.name), member.offset, member.size, std::move(text)});
  }
  return tar;
}

const PackIndex::Shard* PackIndex::shard(std::string_view name) const {
  for (const Shard& entry : shards) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string pack_index_text(const PackIndex& index) {
  return to_json(index).dump(1) + "\n";
}

void write_pack_index(const fs::path& folder, const PackIndex& index) {
  write_pack_index_file(folder / kPackIndexFile, index);
}

void write_pack_index_file(const fs::path& file, const PackIndex& index) {
  fs::path tmp = file;
  tmp += ".tmp";
  {
    std::ofstream out(tmp);
    out << pack_index_text(index);
    if (!out) throw Error(tmp.string() + ": cannot write");
  }
  std::error_code error;
  fs::rename(tmp, file, error);
  if (error) throw Error(tmp.string() + ": cannot rename: " + error.message());
}

std::optional<PackIndex> parse_pack_index(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 1: ..." without the tag; a
    // number too large for a double is an out_of_range error, as damaged as bad syntax.
    const std::string what = e.what();
    const std::size_t tag_end = what.find("] ");
    throw Error(file + ": damaged pack index, not valid JSON: " +
                (tag_end == std::string::npos ? what : what.substr(tag_end + 2)));
  }
  if (!root.is_object()) return std::nullopt;
  const auto format = root.find("format");
  if (format == root.end() || !format->is_string() || format->get<std::string>() != kFormat) {
    return std::nullopt;
  }
  return parse(root, file);
}

std::optional<PackIndex> read_pack_index(const fs::path& folder) {
  const fs::path file = folder / kPackIndexFile;
  std::error_code error;
  if (!fs::exists(file, error)) return std::nullopt;
  std::ifstream in(file);
  if (!in) throw Error(file.string() + ": cannot open");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_pack_index(text, file.string());
}

PackIndex shard_index_of(const Dataset& dataset, const std::string& source,
                         const std::vector<std::vector<PackIndex::TarEntry>>* listings) {
  if (dataset.format() != DatasetFormat::kTarShards) {
    throw Error(source + ": not tar shards: only shards need an index beside them");
  }
  PackIndex index;
  index.source = source;
  index.source_samples = index.samples = dataset.size();
  index.counts.unchanged = dataset.size();
  index.source_bytes = index.image_bytes = dataset.total_bytes();
  const std::string folder = dataset.files().front().parent_path().string();
  for (std::uint32_t file = 0; file < dataset.files().size(); ++file) {
    const fs::path& path = dataset.files()[file];
    if (path.parent_path().string() != folder) {
      throw Error(source + ": the shards are in more than one folder (" + folder + ", " +
                  path.parent_path().string() + "): an index lies beside the shards of one");
    }
    std::uint64_t bytes = dataset.file_bytes(file);
    if (!dataset.is_remote()) {
      std::error_code error;
      bytes = fs::file_size(path, error);
      if (error) throw Error(path.string() + ": cannot stat: " + error.message());
    }
    index.shards.push_back({path.filename().string(), 0, 0, bytes, {}, {}});
    index.shard_bytes += bytes;
  }
  for (std::size_t i = 0; i < dataset.size(); ++i) {
    const SampleRef& ref = dataset.sample(i);
    PackIndex::Shard& shard = index.shards[ref.file];
    if (shard.samples++ == 0) shard.first = i;
    shard.members.push_back({dataset.member(i), ref.offset, ref.size, ref.label});
  }
  const bool listed = listings != nullptr && listings->size() == dataset.files().size();
  if (!dataset.is_remote() || listed) {
    for (std::uint32_t file = 0; file < dataset.files().size(); ++file) {
      PackIndex::Shard& shard = index.shards[file];
      shard.tar = listed ? (*listings)[file] : archive_of(dataset.files()[file]);
      label_members(shard);
    }
  }
  return index;
}

bool lists_archives(const PackIndex& index) {
  return !index.shards.empty() &&
         std::all_of(index.shards.begin(), index.shards.end(),
                     [](const PackIndex::Shard& shard) { return !shard.tar.empty(); });
}

}  // namespace feedrate
