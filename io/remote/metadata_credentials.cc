#include "io/remote/metadata_credentials.h"

#include <curl/curl.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "io/remote/credentials_json.h"
#include "io/remote/curl_handle.h"
#include "io/remote/url.h"

namespace feedrate::io {
namespace {

constexpr long kConnectTimeoutMs = 1'000;
constexpr long kTimeoutMs = 2'000;
constexpr unsigned kAttempts = 2;
constexpr std::size_t kMaxBody = 64 << 10;

struct Answer {
  bool reached = false;  // a connection was made
  long status = 0;       // 0: no HTTP answer
  std::string body;
  std::string error;  // the transfer's error when status is 0
};

Answer attempt(const char* method, const std::string& url, const std::vector<std::string>& lines) {
  Answer answer;
  CurlEasy easy = new_easy();
  CurlList headers;
  for (const auto& line : lines) append_header(headers, line.c_str());
  BoundedBody sink{&answer.body, kMaxBody};  // a longer answer is not credentials
  char error[CURL_ERROR_SIZE] = {};
  CURL* handle = easy.get();
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_PROXY, "");
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, kTimeoutMs);
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collect_bounded);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error);
  const CURLcode result = curl_easy_perform(handle);
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &answer.status);
  curl_off_t connected = 0;
  curl_easy_getinfo(handle, CURLINFO_CONNECT_TIME_T, &connected);
  answer.reached = answer.status != 0 || connected > 0;
  if (result != CURLE_OK) {
    answer.status = 0;
    answer.error = curl_easy_strerror(result);
    if (error[0] != '\0') answer.error += " (" + std::string(error) + ")";
  }
  return answer;
}

// One request, retried once after a 5xx or a failed transfer on a connection that was made.
Answer ask(const char* method, const std::string& url, const std::vector<std::string>& lines) {
  Answer answer;
  for (unsigned attempts = 0; attempts < kAttempts; ++attempts) {
    answer = attempt(method, url, lines);
    if (!answer.reached || (answer.status != 0 && answer.status < 500)) break;
  }
  return answer;
}

// "METHOD URL: what happened", for an answer other than 200.
std::string failure(const char* method, const std::string& url, const Answer& answer) {
  const std::string what = std::string(method) + " " + url + ": ";
  if (answer.status == 0) return what + answer.error;
  return what + "HTTP " + std::to_string(answer.status);
}

bool allowed_over_http(const std::string& host) {
  return host.rfind("127.", 0) == 0 || host == "localhost" || host == "[::1]" ||
         host == "169.254.170.2" || host == "169.254.170.23" || host == "[fd00:ec2::23]";
}

std::string read_token_file(const std::string& path, const std::string& origin) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    throw std::runtime_error(origin + ": cannot read AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE " +
                             path);
  }
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  return token;
}

}  // namespace

std::string source_text(const ContainerSource& source) {
  return "container credentials (" + source.variable + ")";
}

TimedCredentials fetch_container_credentials(const ContainerSource& source) {
  const std::string origin = source_text(source);
  RemoteUrl url;
  try {
    url = parse_url(source.url);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(origin + ": " + error.what());
  }
  if (url.scheme == UrlScheme::kS3 ||
      (url.scheme == UrlScheme::kHttp && !allowed_over_http(url.host))) {
    throw std::runtime_error(origin + ": " + source.url +
                             " must be https://, or http:// to a loopback address, "
                             "169.254.170.2, 169.254.170.23 or fd00:ec2::23");
  }
  std::vector<std::string> headers{"Accept: application/json"};
  const std::string token = source.token_file.empty() ? source.token.reveal()
                                                      : read_token_file(source.token_file, origin);
  if (!token.empty()) headers.push_back("Authorization: " + token);
  const Answer answer = ask("GET", source.url, headers);
  if (answer.status != 200)
    throw std::runtime_error(origin + ": " + failure("GET", source.url, answer));
  return parse_credentials_json(answer.body, CredentialsJson::kMetadata, origin);
}

std::string instance_source_text(const std::string& role) {
  return "instance metadata (IMDSv2, role '" + role + "')";
}

InstanceCredentials fetch_instance_credentials(const std::string& endpoint) {
  InstanceCredentials found;
  const std::string token_url = endpoint + "/latest/api/token";
  // A PUT without a body, as the SDKs send it (Content-Length 0).
  const Answer token =
      ask("PUT", token_url, {"X-aws-ec2-metadata-token-ttl-seconds: 21600", "Content-Length: 0"});
  if (token.status != 200 || token.body.empty()) {
    found.why_none = "instance metadata: " + failure("PUT", token_url, token);
    return found;
  }
  const Secret session(token.body);
  const std::vector<std::string> headers{"X-aws-ec2-metadata-token: " + session.reveal()};
  const std::string roles_url = endpoint + "/latest/meta-data/iam/security-credentials/";
  const Answer roles = ask("GET", roles_url, headers);
  const std::string role = roles.body.substr(0, roles.body.find_first_of("\r\n"));
  if (roles.status != 200 || role.empty()) {
    found.why_none = "instance metadata: " + (roles.status == 404 || role.empty()
                                                  ? "no IAM role attached to the instance"
                                                  : failure("GET", roles_url, roles));
    return found;
  }
  const std::string origin = instance_source_text(role);
  const std::string role_url = roles_url + encode_path(role);
  const Answer answer = ask("GET", role_url, headers);
  if (answer.status != 200)
    throw std::runtime_error(origin + ": " + failure("GET", role_url, answer));
  const auto object = nlohmann::json::parse(answer.body, nullptr, false);
  if (object.is_object() && object.contains("Code") && object["Code"] != "Success") {
    throw std::runtime_error(origin + ": GET " + role_url + ": the answer's Code is not Success");
  }
  found.credentials = parse_credentials_json(answer.body, CredentialsJson::kMetadata, origin);
  found.role = role;
  return found;
}

}  // namespace feedrate::io
