#include "tests/io/remote/remote_servers.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace feedrate::io::test_support {
namespace {

std::size_t append(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// One request to the proxy's control endpoint; throws unless it answers 200.
std::string control(const std::string& method, const std::string& url, const std::string& body) {
  CURL* easy = curl_easy_init();
  std::string answer;
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &answer);
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!body.empty()) {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  }
  const CURLcode result = curl_easy_perform(easy);
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(easy);
  if (result != CURLE_OK || status != 200) {
    throw std::runtime_error(method + " " + url + " failed: " + curl_easy_strerror(result) +
                             ", HTTP " + std::to_string(status) + ": " + answer);
  }
  return answer;
}

}  // namespace

std::optional<RemoteServers> RemoteServers::load(std::string& why) {
  const char* path = std::getenv("FEEDRATE_REMOTE_ENDPOINTS");
  if (path == nullptr || *path == '\0') {
    why =
        "FEEDRATE_REMOTE_ENDPOINTS is not set: no test servers (start them with "
        "tests/remote/servers.py up and point the variable at their endpoints.json)";
    return std::nullopt;
  }
  std::ifstream in(path);
  if (!in) {
    why = std::string("no endpoints file at FEEDRATE_REMOTE_ENDPOINTS=") + path;
    return std::nullopt;
  }
  return RemoteServers(nlohmann::json::parse(in));
}

S3Settings RemoteServers::s3_settings(const std::string& endpoint,
                                      const std::optional<std::string>& secret) const {
  S3Settings settings;
  settings.endpoint = endpoint;
  settings.path_style = true;
  settings.region = endpoints_.value("region", "us-east-1");
  settings.credentials =
      CredentialProvider::fixed({get("access_key"), Secret(secret.value_or(get("secret_key"))), {}},
                                "the test servers' endpoints file");
  return settings;
}

std::string RemoteServers::s3_url(const std::string& relative) const {
  return "s3://" + get("bucket") + "/" + endpoints_.value("prefix", "") + relative;
}

std::vector<std::string> RemoteServers::files() const {
  std::vector<std::string> names;
  if (!endpoints_.contains("data") || endpoints_["data"].is_null()) return names;
  const std::filesystem::path root = get("data");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) {
      names.push_back(entry.path().lexically_relative(root).generic_string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<unsigned char> RemoteServers::local(const std::string& relative) const {
  std::ifstream in(std::filesystem::path(get("data")) / relative, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void RemoteServers::let_unchecked(int requests) const {
  control("POST", get("s3") + "/moto-api/reset-auth", std::to_string(requests));
}

void RemoteServers::clear_faults() const {
  control("DELETE", get("proxy_control") + "/__faults", "");
  control("DELETE", get("proxy_control") + "/__log", "");
}

void RemoteServers::add_faults(const nlohmann::json& rules) const {
  control("POST", get("proxy_control") + "/__faults", rules.dump());
}

nlohmann::json RemoteServers::proxy_log() const {
  return nlohmann::json::parse(control("GET", get("proxy_control") + "/__log", ""))["log"];
}

std::string RemoteServers::proxied_url(const std::string& relative) const {
  if (endpoints_.value("proxy_upstream", "") == "s3") return s3_url(relative);
  return get("proxy") + "/" + relative;
}

}  // namespace feedrate::io::test_support
