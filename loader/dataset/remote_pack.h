// A pack's index.json at an s3:// or http(s):// URL given as the source itself
// (`Loader("https://host/set/index.json")`): the index (docs/pack-index.md) and the URLs of the
// shards it lists, each resolved relative to the index's URL (its folder + the shard's name), in
// the index's order. The dataset builder (remote_dataset.cc) reads the shards' members from the
// index when it lists them, and `feedrate doctor` (store_probe.cc) measures the shards.
//
// Errors: read_remote_pack() throws feedrate::Error naming the URL when the index cannot be read
// (the store's message: status, and for denied access where the credentials came from), is not
// a feedrate pack index, or lists a shard whose name is not a plain file name.
// Thread-safety: reentrant functions; the store is the caller's, used on the calling thread.
#pragma once

#include <string>
#include <vector>

#include "io/remote/object_store.h"
#include "loader/dataset/pack_index.h"

namespace feedrate {

struct RemotePack {
  std::string url;  // of the index
  PackIndex index;
  std::vector<std::string> shard_urls;  // as index.shards
};

// Whether a remote source names a pack index rather than a file list: its name ends in ".json".
bool names_pack_index(const std::string& source);

RemotePack read_remote_pack(io::ObjectStore& store, const std::string& url);

}  // namespace feedrate
