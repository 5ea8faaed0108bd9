// Dataset::Builder::remote: the index of an s3:// or http(s):// source, the same index a local
// copy of the same bytes gets (tar_shards.cc and image_folder.cc are the local twins whose
// order this follows).
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "feedrate/error.h"
#include "io/remote/brace_pattern.h"
#include "io/remote/object_store.h"
#include "io/remote/remote_error.h"
#include "io/remote/url.h"
#include "loader/dataset/dataset_builders.h"
#include "loader/dataset/pack_index.h"
#include "loader/dataset/remote_pack.h"
#include "loader/dataset/remote_settings.h"
#include "loader/dataset/remote_shards.h"

namespace feedrate {
namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// What a failed remote call means for the index: the message names the URL, the status and,
// for denied access, where the credentials came from.
template <typename T>
T value_or_throw(io::RemoteResult<T> result) {
  if (!result.ok()) throw Error(result.message);
  return std::move(result.value);
}

std::string folder_of(const std::string& url) {
  return url.substr(0, url.rfind('/') + 1);
}

// The objects at `urls`. On S3 one listing of `prefix` (a folder or key prefix above them all)
// finds them all (a HEAD per object would cost a round trip each); an https:// server is asked
// per object. A missing one is an error naming it and what named it.
std::vector<io::ObjectInfo> objects_at(io::ObjectStore& store, const std::vector<std::string>& urls,
                                       const std::string& prefix, const std::string& named_by) {
  std::vector<io::ObjectInfo> objects;
  if (io::parse_url(prefix).scheme == io::UrlScheme::kS3) {
    std::map<std::string, io::ObjectInfo> listed;
    for (io::ObjectInfo& object : value_or_throw(store.list(prefix))) {
      listed.emplace(object.url, std::move(object));
    }
    for (const std::string& url : urls) {
      const auto it = listed.find(url);
      if (it == listed.end()) throw Error(url + ": no such object (named by " + named_by + ")");
      objects.push_back(it->second);
    }
    return objects;
  }
  for (const std::string& url : urls) objects.push_back(value_or_throw(store.stat(url)));
  return objects;
}

// The shards a brace pattern names.
std::vector<io::ObjectInfo> pattern_objects(io::ObjectStore& store, const std::string& pattern) {
  std::vector<std::string> urls;
  try {
    urls = io::expand_braces(pattern);
  } catch (const std::invalid_argument& e) {
    throw Error(e.what());
  }
  return objects_at(store, urls, pattern.substr(0, pattern.find('{')), "the pattern " + pattern);
}

// The shards of a pack index given as the source, checked against it: a shard whose size
// differs from its entry was altered after the pack.
std::vector<io::ObjectInfo> pack_shards(io::ObjectStore& store, const RemotePack& pack) {
  std::vector<io::ObjectInfo> shards =
      objects_at(store, pack.shard_urls, folder_of(pack.url), pack.url);
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const PackIndex::Shard& entry = pack.index.shards[i];
    if (shards[i].size != entry.bytes) {
      throw Error(shards[i].url + ": " + std::to_string(shards[i].size) + " bytes where " +
                  pack.url + " records " + std::to_string(entry.bytes) +
                  " (the shard was altered after feedrate pack)");
    }
  }
  return shards;
}

// Whether the index lists every member of every shard (version 2, as feedrate pack and feedrate
// index write it).
bool lists_members(const PackIndex& index) {
  return std::all_of(index.shards.begin(), index.shards.end(), [](const PackIndex::Shard& shard) {
    return shard.members.size() == shard.samples;
  });
}

struct FolderEntry {
  std::string directory;  // the key's folder under the root, "class/sub"
  std::string name;       // the file name
  const io::ObjectInfo* object = nullptr;
};

// The index.json beside the shards (one folder), when it lists every shard with its members and
// the size the store has now; nullopt otherwise (the shards are then streamed once).
std::optional<PackIndex> index_beside(io::ObjectStore& store,
                                      const std::vector<io::ObjectInfo>& shards) {
  const std::string folder = folder_of(shards.front().url);
  for (const io::ObjectInfo& shard : shards) {
    if (folder_of(shard.url) != folder) return std::nullopt;
  }
  const std::string url = folder + std::string(kPackIndexFile);
  io::RemoteResult<std::string> text = store.get(url);
  if (text.error == io::RemoteErrc::kNotFound) return std::nullopt;
  if (!text.ok()) throw Error(text.message);
  std::optional<PackIndex> index = parse_pack_index(text.value, url);
  if (!index) return std::nullopt;
  if (!lists_members(*index) && !lists_archives(*index)) return std::nullopt;
  for (const io::ObjectInfo& shard : shards) {
    const PackIndex::Shard* entry = index->shard(shard.url.substr(folder.size()));
    if (entry == nullptr || entry->bytes != shard.size) return std::nullopt;
  }
  return index;
}

}  // namespace

void Dataset::Builder::indexed_shards(Dataset& dataset, const std::vector<io::ObjectInfo>& shards,
                                      const PackIndex& index, const std::string& index_url,
                                      std::set<std::int32_t>& labels) {
  const std::string folder = folder_of(shards.front().url);
  for (const io::ObjectInfo& shard : shards) {
    const auto file = static_cast<std::uint32_t>(dataset.files_.size());
    dataset.files_.emplace_back(shard.url);
    dataset.etags_.push_back(shard.etag);
    dataset.file_bytes_.push_back(shard.size);
    for (const PackIndex::Member& m : index.shard(shard.url.substr(folder.size()))->members) {
      if (m.label < 0 || m.label > kMaxLabel || m.offset + m.size > shard.size) {
        throw Error(index_url + ": member " + m.name + " of " + shard.url +
                    " lies outside the shard or has a bad label");
      }
      dataset.samples_.push_back({file, m.offset, m.size, m.label});
      dataset.members_.push_back(m.name);
      labels.insert(m.label);
    }
  }
}

// An ImageFolder tree of one object per image under `root` (an s3:// prefix ending in '/'), in
// torchvision's order as image_folder.cc gives it for a local copy: classes by name, then each
// class's folders by their path as a string, names sorted within a folder.
void Dataset::Builder::remote_image_folder(Dataset& dataset, const std::string& root,
                                           const std::vector<io::ObjectInfo>& objects,
                                           bool allow_empty_classes) {
  std::map<std::string, std::vector<FolderEntry>> classes;
  std::vector<std::string> ignored;
  for (const io::ObjectInfo& object : objects) {
    const std::string relative = object.url.substr(root.size());
    const std::size_t slash = relative.find('/');
    if (slash == std::string::npos) continue;  // a file beside the class folders
    const std::size_t last = relative.rfind('/');
    std::vector<FolderEntry>& entries = classes[relative.substr(0, slash)];
    if (last + 1 == relative.size()) continue;  // a folder marker object
    if (!is_image_name(relative.substr(last + 1))) {
      ignored.push_back(object.url);
      continue;
    }
    entries.push_back({relative.substr(0, last), relative.substr(last + 1), &object});
  }
  if (classes.empty()) {
    throw Error(root + ": no class folders (expected " + root + "<class>/<image>)");
  }
  std::vector<std::string> empty_classes;
  for (auto& [name, entries] : classes) {
    const auto label = static_cast<std::int32_t>(dataset.classes_.size());
    dataset.classes_.push_back(name);
    std::sort(entries.begin(), entries.end(), [](const FolderEntry& a, const FolderEntry& b) {
      return std::tie(a.directory, a.name) < std::tie(b.directory, b.name);
    });
    for (const FolderEntry& entry : entries) {
      dataset.samples_.push_back(
          {static_cast<std::uint32_t>(dataset.files_.size()), 0, entry.object->size, label});
      dataset.files_.emplace_back(entry.object->url);
      dataset.etags_.push_back(entry.object->etag);
      dataset.file_bytes_.push_back(entry.object->size);
    }
    if (entries.empty()) empty_classes.push_back(name);
  }
  std::sort(ignored.begin(), ignored.end());
  for (std::string& url : ignored) ignore(dataset, std::move(url));
  if (!empty_classes.empty() && !allow_empty_classes) {
    throw Error(root + empty_classes.front() +
                "/: class folder without images (allow it with allow_empty_classes)");
  }
}

void Dataset::Builder::remote_file_list(Dataset& dataset, const std::string& list,
                                        const std::string& text, io::ObjectStore& store) {
  const std::string folder = list.substr(0, list.rfind('/') + 1);
  struct Line {
    std::string url, where;
    std::int32_t label;
  };
  std::vector<Line> lines;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string where = list + ":" + std::to_string(++number) + ": ";
    const std::optional<ListLine> parsed = parse_list_line(text.substr(at, end - at), where);
    at = end + 1;
    if (!parsed) continue;
    if (parsed->path.front() == '/' || parsed->path.starts_with("../") ||
        parsed->path.find("/../") != std::string::npos) {
      throw Error(where + "path '" + parsed->path + "' is outside the list's folder");
    }
    if (!is_image_name(parsed->path.substr(parsed->path.rfind('/') + 1))) {
      ignore(dataset, where + folder + parsed->path);
      continue;
    }
    lines.push_back({folder + parsed->path, where, parsed->label});
  }
  // One listing of the folder on S3; a HEAD per file on an HTTP server.
  std::map<std::string, io::ObjectInfo> listed;
  const bool s3 = io::parse_url(list).scheme == io::UrlScheme::kS3;
  if (s3) {
    for (io::ObjectInfo& object : value_or_throw(store.list(folder))) {
      listed.emplace(object.url, std::move(object));
    }
  }
  std::set<std::int32_t> labels;
  for (const Line& line : lines) {
    io::ObjectInfo object;
    if (s3) {
      const auto it = listed.find(line.url);
      if (it == listed.end()) throw Error(line.where + line.url + ": no such object");
      object = it->second;
    } else {
      io::RemoteResult<io::ObjectInfo> found = store.stat(line.url);
      if (!found.ok()) throw Error(line.where + found.message);
      object = std::move(found.value);
    }
    dataset.samples_.push_back(
        {static_cast<std::uint32_t>(dataset.files_.size()), 0, object.size, line.label});
    dataset.files_.emplace_back(line.url);
    dataset.etags_.push_back(object.etag);
    dataset.file_bytes_.push_back(object.size);
    labels.insert(line.label);
  }
  label_classes(dataset, labels);
}

void Dataset::Builder::remote(Dataset& dataset, const std::string& source,
                              bool allow_empty_classes) {
  const RemoteSettings settings = remote_settings(source);
  io::ObjectStore store(settings.s3, settings.store);
  std::vector<io::ObjectInfo> shards;
  std::optional<RemotePack> pack;
  try {
    const io::RemoteUrl url = io::parse_url(source);
    if (io::has_brace_pattern(source)) {
      shards = pattern_objects(store, source);
    } else if (names_pack_index(source)) {
      pack = read_remote_pack(store, source);
      shards = pack_shards(store, *pack);
    } else if (ends_with(source, ".tar")) {
      shards.push_back(value_or_throw(store.stat(source)));
    } else if (!ends_with(source, "/") &&
               !(url.scheme == io::UrlScheme::kS3 &&
                 store.stat(source).error == io::RemoteErrc::kNotFound)) {
      // An object, not a prefix: a file list.
      dataset.format_ = DatasetFormat::kFileList;
      remote_file_list(dataset, source, value_or_throw(store.get(source)), store);
      return;
    } else if (url.scheme == io::UrlScheme::kS3) {
      const std::string root = ends_with(source, "/") ? source : source + "/";
      std::vector<io::ObjectInfo> objects = value_or_throw(store.list(root));
      if (objects.empty()) throw Error(root + ": no objects under this prefix");
      for (const io::ObjectInfo& object : objects) {
        if (ends_with(object.url, ".tar")) shards.push_back(object);
      }
      if (shards.empty()) {
        dataset.format_ = DatasetFormat::kImageFolder;
        remote_image_folder(dataset, root, objects, allow_empty_classes);
        return;
      }
    } else {
      throw Error(source +
                  ": an https:// folder has no listing: name its tar shards (shard.tar, or a "
                  "brace pattern such as shard-{0000..0099}.tar) or a file list");
    }
  } catch (const std::invalid_argument& e) {
    throw Error(e.what());
  }
  dataset.format_ = DatasetFormat::kTarShards;
  std::set<std::int32_t> labels;
  if (!pack) {
    if (std::optional<PackIndex> beside = index_beside(store, shards)) {
      pack = RemotePack{
          folder_of(shards.front().url) + std::string(kPackIndexFile), std::move(*beside), {}};
    }
  }
  // KEY.json annotations are read from the shards' bytes as they stream: no index spares that.
  const bool jsons = dataset.spec_.annotations == kAnnotationsInShards;
  if (pack && lists_archives(pack->index) && !jsons) {
    // Every archive listed: the samples of any fields, without reading a shard.
    const std::string folder = folder_of(shards.front().url);
    for (const io::ObjectInfo& shard : shards) {
      archive_shard(dataset, shard.url, pack->index.shard(shard.url.substr(folder.size()))->tar,
                    labels);
      dataset.etags_.push_back(shard.etag);
      dataset.file_bytes_.push_back(shard.size);
    }
  } else if (pack && lists_members(pack->index) && dataset.member_fields_ == 0 && !jsons) {
    indexed_shards(dataset, shards, pack->index, pack->url, labels);
  } else {
    // Streamed once; a shard of a pack index (one without members) must hold what it records.
    std::size_t shard_number = 0;
    index_remote_shards(settings, shards, [&](const io::ObjectInfo& shard, int fd) {
      const std::size_t before = dataset.samples_.size();
      if (dataset.spec_.streamed_shard) {
        dataset.spec_.streamed_shard(static_cast<std::uint32_t>(shard_number), shard.url, fd);
      }
      tar_shard(dataset, shard.url, fd, labels);
      if (jsons) shard_json_texts(dataset, shard.url, fd, before, dataset.samples_.size());
      dataset.etags_.push_back(shard.etag);
      dataset.file_bytes_.push_back(shard.size);
      const std::size_t samples = dataset.samples_.size() - before;
      // (Fields other than cls may leave keys out that the index counts.)
      if (pack && dataset.member_fields_ == 0 &&
          samples != pack->index.shards[shard_number].samples) {
        throw Error(shard.url + ": holds " + std::to_string(samples) + " samples where " +
                    pack->url + " records " +
                    std::to_string(pack->index.shards[shard_number].samples) +
                    " (the shard was altered after feedrate pack)");
      }
      ++shard_number;
    });
  }
  label_classes(dataset, labels);
}

}  // namespace feedrate
