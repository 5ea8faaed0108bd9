// The size and ETag of objects named one by one by URL (a manifest's images, a COCO json's over
// a remote folder), for the ranged GETs that read them: an s3:// object from one listing of its
// folder (each folder listed once, when the first of its objects is asked for), an https://
// one from a HEAD of its own, since HTTP lists nothing. Each URL's endpoint and credentials are
// the first URL's (remote_settings of its root): the objects of one dataset share a store.
//
// Thread-safety: one thread at a time.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/remote/object_store.h"

namespace feedrate {

class RemoteObjects {
 public:
  // The objects under `prefix` (an s3:// prefix listed for other reasons): an object under it is
  // found, or not, without a request.
  void add_listing(const std::string& prefix, const std::vector<io::ObjectInfo>& objects);
  // The object at `url`, or nullopt with `problem` saying why (no such object, a failed
  // request: the store's message). Throws feedrate::Error when `url` is not an s3:// or
  // http(s):// URL.
  std::optional<io::ObjectInfo> find(const std::string& url, std::string& problem);

 private:
  std::unique_ptr<io::ObjectStore> store_;
  // What was listed (recursively: ListObjectsV2): the few prefixes add_listing was given, and
  // the folders find() listed, looked up once a URL.
  std::vector<std::string> given_;
  std::set<std::string> folders_;
  std::map<std::string, io::ObjectInfo> objects_;
};

}  // namespace feedrate
