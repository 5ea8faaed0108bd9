#include "loader/dataset/remote_objects.h"

#include <algorithm>

#include "feedrate/error.h"
#include "io/remote/url.h"
#include "loader/dataset/remote_settings.h"

namespace feedrate {

void RemoteObjects::add_listing(const std::string& prefix,
                                const std::vector<io::ObjectInfo>& objects) {
  for (const io::ObjectInfo& object : objects) objects_.emplace(object.url, object);
  given_.push_back(prefix);
}

std::optional<io::ObjectInfo> RemoteObjects::find(const std::string& url, std::string& problem) {
  if (!io::is_url(url)) throw Error(url + ": not an s3:// or http(s):// URL");
  const std::string folder = url.substr(0, url.rfind('/') + 1);
  if (!store_) {
    const RemoteSettings settings = remote_settings(folder);
    store_ = std::make_unique<io::ObjectStore>(settings.s3, settings.store);
  }
  if (io::parse_url(url).scheme != io::UrlScheme::kS3) {
    io::RemoteResult<io::ObjectInfo> found = store_->stat(url);
    if (!found.ok()) {
      problem = found.message;
      return std::nullopt;
    }
    return std::move(found.value);
  }
  const bool listed = folders_.contains(folder) ||
                      std::any_of(given_.begin(), given_.end(),
                                  [&](const auto& prefix) { return folder.starts_with(prefix); });
  if (!listed) {
    io::RemoteResult<std::vector<io::ObjectInfo>> listing = store_->list(folder);
    if (!listing.ok()) {
      problem = listing.message;
      return std::nullopt;
    }
    for (io::ObjectInfo& object : listing.value) objects_.emplace(object.url, std::move(object));
    folders_.insert(folder);
  }
  const auto found = objects_.find(url);
  if (found == objects_.end()) {
    problem = url + ": no such object";
    return std::nullopt;
  }
  return found->second;
}

}  // namespace feedrate
