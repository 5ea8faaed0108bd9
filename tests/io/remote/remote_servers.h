// The real servers of the io/remote server suite (moto's S3, nginx over http and https, the fault
// proxy), as tests/remote/servers.py describes them in the endpoints file named by
// $FEEDRATE_REMOTE_ENDPOINTS: settings for a fetcher or store, the local copy of the data, and
// the fault proxy's control endpoint. Thread-safety: test code, one thread.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/remote/credentials.h"
#include "tests/io/remote/fetch_test_util.h"

namespace feedrate::io::test_support {

class RemoteServers {
 public:
  // The servers of $FEEDRATE_REMOTE_ENDPOINTS, or nullopt with `why` set when there are none.
  static std::optional<RemoteServers> load(std::string& why);

  bool has(const std::string& key) const { return endpoints_.contains(key); }
  std::string get(const std::string& key) const { return endpoints_.at(key).get<std::string>(); }
  bool auth() const { return endpoints_.value("auth", false); }

  // Signed settings for moto (or the proxy in front of it, `endpoint`), with `secret` in place
  // of the real secret when given.
  S3Settings s3_settings(const std::string& endpoint,
                         const std::optional<std::string>& secret = std::nullopt) const;
  // s3://bucket/prefix + relative
  std::string s3_url(const std::string& relative) const;

  // The data's files, relative to its root, sorted; and one file's bytes.
  std::vector<std::string> files() const;
  std::vector<unsigned char> local(const std::string& relative) const;

  // moto checking signatures lets the next `requests` requests through unchecked
  // (POST /moto-api/reset-auth), then checks again.
  void let_unchecked(int requests) const;

  // The fault proxy: rules as JSON (see tests/remote/fault_proxy.py), its request log, and
  // the URL an object has through it (an s3:// URL when the proxy fronts moto, then fetched
  // with s3_settings(get("proxy")), else an http:// one).
  void clear_faults() const;
  void add_faults(const nlohmann::json& rules) const;
  nlohmann::json proxy_log() const;
  std::string proxied_url(const std::string& relative) const;

 private:
  explicit RemoteServers(nlohmann::json endpoints) : endpoints_(std::move(endpoints)) {}
  nlohmann::json endpoints_;
};

}  // namespace feedrate::io::test_support
