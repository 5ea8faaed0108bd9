#include "loader/dataset/remote_pack.h"

#include <optional>

#include "feedrate/error.h"

namespace feedrate {

bool names_pack_index(const std::string& source) {
  const std::string name = source.substr(source.rfind('/') + 1);
  return name.size() > 5 && name.ends_with(".json");
}

RemotePack read_remote_pack(io::ObjectStore& store, const std::string& url) {
  io::RemoteResult<std::string> text = store.get(url);
  if (!text.ok()) throw Error(text.message);
  std::optional<PackIndex> index = parse_pack_index(text.value, url);
  if (!index) {
    throw Error(url + ": not a feedrate pack index (no \"format\": \"feedrate-pack\"); a remote " +
                "source ending in .json must be the index.json of feedrate pack or feedrate index");
  }
  RemotePack pack;
  pack.url = url;
  const std::string folder = url.substr(0, url.rfind('/') + 1);
  for (const PackIndex::Shard& shard : index->shards) {
    if (shard.name.empty() || shard.name.find('/') != std::string::npos || shard.name == "." ||
        shard.name == "..") {
      throw Error(url + ": shard name '" + shard.name +
                  "' is not a file name beside the index (a pack's shards lie in its folder)");
    }
    pack.shard_urls.push_back(folder + shard.name);
  }
  if (pack.shard_urls.empty()) throw Error(url + ": the pack index lists no shards");
  pack.index = std::move(*index);
  return pack;
}

}  // namespace feedrate
